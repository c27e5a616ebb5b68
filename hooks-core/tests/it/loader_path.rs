//! Path resolution rules of SPEC-DETAILS 7.2, as one table.

use std::path::Path;

use hookwright::loader::path::resolve_path;

#[test]
fn path_rules() {
    let cwd = Path::new("/work/p");
    let home = Path::new("/home/u");
    let table: &[(&str, &str, &str)] = &[
        // absolute: used as is (not normalised)
        ("/abs/h.sh", "/abs/h.sh", "absolute"),
        ("/abs/../x.sh", "/abs/../x.sh", "absolute kept as is"),
        // relative: against cwd, normalised
        ("rel/h.sh", "/work/p/rel/h.sh", "relative"),
        ("./a/../b.sh", "/work/p/b.sh", "dot segments"),
        ("../q//h.sh", "/work/q/h.sh", "parent and double slash"),
        ("../../../../x", "/x", "never above the root"),
        ("dir/", "/work/p/dir", "trailing slash"),
        // tilde
        ("~", "/home/u", "tilde alone"),
        ("~/h.sh", "/home/u/h.sh", "tilde slash"),
        ("~\\h.sh", "/home/u\\h.sh", "tilde backslash: home + rest"),
        (
            "~other/h.sh",
            "/home/u/other/h.sh",
            "tilde name is not a user lookup",
        ),
        (
            "~../x.sh",
            "/home/x.sh",
            "tilde name is joined and normalised",
        ),
        ("a/~/b", "/work/p/a/~/b", "tilde only at the start"),
        // the @ prefix
        ("@/abs/h.sh", "/abs/h.sh", "@ before an absolute path"),
        ("@~", "/home/u", "@ before tilde"),
        ("@~/h.sh", "/home/u/h.sh", "@ before tilde slash"),
        ("@~name", "/work/p/@~name", "@ before ~name is literal"),
        ("@name.sh", "/work/p/@name.sh", "@ before a name is literal"),
        (
            "@\\abs",
            "/work/p/\\abs",
            "@ before a Windows root-relative path",
        ),
        ("@C:/x", "/work/p/C:/x", "@ before a drive path"),
        (
            "@C:x",
            "/work/p/@C:x",
            "@ before a drive-relative path is literal",
        ),
        ("@agent://x", "/work/p/agent:/x", "@ before agent://"),
        (
            "@artifact://x",
            "/work/p/artifact:/x",
            "@ before artifact://",
        ),
        ("@skill://x", "/work/p/skill:/x", "@ before skill://"),
        ("@rule://x", "/work/p/rule:/x", "@ before rule://"),
        ("@local://x", "/work/p/local:/x", "@ before local://"),
        ("@mcp://x", "/work/p/mcp:/x", "@ before mcp://"),
        (
            "@other://x",
            "/work/p/@other:/x",
            "@ before another scheme is literal",
        ),
        (
            "@file:///abs",
            "/work/p/@file:/abs",
            "@ before file:// is literal",
        ),
        // Unicode spaces
        ("a\u{00A0}b.sh", "/work/p/a b.sh", "no-break space"),
        (
            "a\u{2000}\u{2005}\u{200A}b",
            "/work/p/a   b",
            "en quad to hair space",
        ),
        (
            "a\u{202F}\u{205F}\u{3000}b",
            "/work/p/a   b",
            "narrow, math, ideographic",
        ),
        (
            "a\u{200B}b",
            "/work/p/a\u{200B}b",
            "zero width space is not a space",
        ),
        ("~/a\u{00A0}b", "/home/u/a b", "spaces then tilde"),
        // file:// URLs
        ("file:///abs/h%20x.sh", "/abs/h x.sh", "file URL decoded"),
        ("FILE:///abs/h.sh", "/abs/h.sh", "prefix in any case"),
        ("file://localhost/abs", "/abs", "localhost host"),
        ("file:///abs/../x/./y", "/x/y", "dot segments in URLs"),
        ("file:///abs?q#f", "/abs", "query and fragment dropped"),
        ("file:///%E2%82%AC", "/\u{20AC}", "UTF-8 escapes"),
        ("file:///a\u{00A0}b", "/a b", "spaces before URL conversion"),
        (
            "file://host/abs",
            "/work/p/file:/host/abs",
            "other host: kept as text",
        ),
        (
            "file:///a%2Fb",
            "/work/p/file:/a%2Fb",
            "encoded slash: kept as text",
        ),
        (
            "file:///a%ZZ",
            "/work/p/file:/a%ZZ",
            "bad escape: kept as text",
        ),
        (
            "file:///%FF",
            "/work/p/file:/%FF",
            "not UTF-8: kept as text",
        ),
    ];
    for (input, want, why) in table {
        assert_eq!(
            resolve_path(input, cwd, home),
            Path::new(want),
            "{why}: {input:?}"
        );
    }
}
