//! The configuration files (`hookwright_guards::config`): each test is named after the rule it
//! checks. No test reads the real user's config directory: files are parsed from text, or
//! loaded from a temporary directory with [`config::load_with`].

use std::path::Path;

use hookwright_guards::config::{self, Config, ConfigError, Level};
use hookwright_guards::judge_command;

const USER: &str = "/home/u/.config/hooks/guards.toml";
const PROJECT: &str = "/p/.hooks/guards.toml";

fn user(text: &str) -> Config {
    Config::parse(
        Path::new(USER),
        text,
        Level::User,
        Some(Path::new("/home/u")),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn user_error(text: &str) -> ConfigError {
    Config::parse(
        Path::new(USER),
        text,
        Level::User,
        Some(Path::new("/home/u")),
    )
    .expect_err("an invalid file")
}

fn project(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new(PROJECT), text, Level::Project, None)
}

/// The rule that blocks `command` under `config`, or `"allow"`.
fn rule(config: &Config, command: &str) -> &'static str {
    judge_command(config, command)
        .block
        .map_or("allow", |b| b.rule)
}

#[test]
fn rules_disable_lets_that_rules_command_through_and_says_where() {
    let config = user("[rules]\ndisable = [\"core.git:branch-force-delete\"]\n");
    let decision = judge_command(&config, "git branch -D topic");
    assert_eq!(decision.block, None);
    assert_eq!(decision.allowed.len(), 1);
    let allowed = &decision.allowed[0];
    assert_eq!(
        (allowed.rule, allowed.key),
        ("core.git:branch-force-delete", "rules.disable")
    );
    assert_eq!(allowed.by.to_string(), format!("{USER}:2:12"));
    assert_eq!(
        allowed.to_string(),
        format!(
            "[core.git:branch-force-delete] would block, allowed by rules.disable at {USER}:2:12"
        )
    );
    assert_eq!(rule(&config, "git reset --hard"), "core.git:reset-hard");
    assert_eq!(
        rule(&config, "git branch -D topic; git reset --hard"),
        "core.git:reset-hard",
        "the other rules still block after the disabled one"
    );
}

#[test]
fn packs_disable_turns_off_every_rule_of_the_pack_unless_rules_enable_names_it() {
    let config = user("[packs]\ndisable = [\"core.git\"]\n");
    assert_eq!(rule(&config, "git reset --hard"), "allow");
    assert_eq!(rule(&config, "git clean -fd"), "allow");
    assert_eq!(rule(&config, "rm -rf /"), "core.filesystem:rm-rf-root-home");
    let config =
        user("[packs]\ndisable = [\"core.git\"]\n[rules]\nenable = [\"core.git:reset-hard\"]\n");
    assert_eq!(rule(&config, "git reset --hard"), "core.git:reset-hard");
    assert_eq!(rule(&config, "git clean -fd"), "allow");
    let allowed = judge_command(&config, "git clean -fd").allowed;
    assert_eq!(allowed[0].key, "packs.disable");
    assert_eq!(allowed[0].by.to_string(), format!("{USER}:2:12"));
}

#[test]
fn disabling_an_inline_pack_still_judges_the_shell_commands_its_code_runs() {
    let config = user("[packs]\ndisable = [\"inline.python\"]\n");
    assert_eq!(
        rule(
            &config,
            "python3 -c 'import shutil; shutil.rmtree(\"/srv\")'"
        ),
        "allow"
    );
    assert_eq!(
        rule(
            &config,
            "python3 -c 'import os; os.system(\"git reset --hard\")'"
        ),
        "core.git:reset-hard"
    );
}

#[test]
fn allow_programs_lets_the_named_tool_through_by_any_path_and_wrapper() {
    let config = user("[allow]\nprograms = [\"mkfs.ext4\"]\n");
    for command in [
        "mkfs.ext4 /dev/sdb1",
        "/sbin/mkfs.ext4 /dev/sdb1",
        "sudo mkfs.ext4 /dev/sdb1",
    ] {
        let decision = judge_command(&config, command);
        assert_eq!(decision.block, None, "{command}");
        assert_eq!(decision.allowed[0].rule, "system.disk:mkfs", "{command}");
        assert_eq!(decision.allowed[0].key, "allow.programs", "{command}");
        assert_eq!(decision.allowed[0].by.to_string(), format!("{USER}:2:13"));
    }
    assert_eq!(rule(&config, "mkfs.xfs /dev/sdb1"), "system.disk:mkfs");
    assert!(
        judge_command(&config, "mkfs.ext4 --help")
            .allowed
            .is_empty(),
        "nothing is noted where no rule would have blocked"
    );
    for wrapper in ["sudo", "bash", "xargs", "find"] {
        let e = user_error(&format!("[allow]\nprograms = [\"{wrapper}\"]\n"));
        assert_eq!(e.at, Some((2, 13)), "{wrapper}");
        assert!(e.message.contains("runs other commands"), "{e}");
    }
    let e = user_error("[allow]\nprograms = [\"/sbin/mkfs\"]\n");
    assert!(e.message.contains("not a program name"), "{e}");
}

#[test]
fn allow_commands_lets_exactly_that_simple_command_through() {
    let config = user("[allow]\ncommands = [\"git clean -fdx\", \"rm -rf \\\"$BUILD\\\"\"]\n");
    assert_eq!(rule(&config, "git clean -fdx"), "allow");
    assert_eq!(rule(&config, "cd repo && git clean -fdx"), "allow");
    assert_eq!(rule(&config, "bash -c 'git clean -fdx'"), "allow");
    assert_eq!(rule(&config, "rm -rf \"$BUILD\""), "allow");
    assert_eq!(rule(&config, "git clean -fd"), "core.git:clean-force");
    assert_eq!(rule(&config, "git clean -fdx ."), "core.git:clean-force");
    assert_eq!(
        rule(&config, "git clean -fdx; git reset --hard"),
        "core.git:reset-hard"
    );
    let allowed = judge_command(&config, "git clean -fdx").allowed;
    assert_eq!(
        (allowed[0].rule, allowed[0].key),
        ("core.git:clean-force", "allow.commands")
    );
    for bad in [
        "git clean -fdx && ls",
        "rm -rf x > log",
        "",
        "echo $(git reset --hard)",
    ] {
        let e = user_error(&format!("[allow]\ncommands = [\"{bad}\"]\n"));
        assert!(e.message.contains("not one simple command"), "{bad}: {e}");
    }
}

#[test]
fn allow_paths_make_rm_rf_and_find_delete_fine_inside_them() {
    let config = user("[allow]\npaths = [\"/srv/ci/work/\", \"~/scratch\"]\n");
    for command in [
        "rm -rf /srv/ci/work/build",
        "rm -rf /srv/ci/work",
        "rm -rf /srv/ci/work/*",
        "rm -rf ~/scratch/old /tmp/x",
        "rm -rf $HOME/scratch/old",
        "find /srv/ci/work -name '*.o' -delete",
    ] {
        let decision = judge_command(&config, command);
        assert_eq!(decision.block, None, "{command}");
        assert_eq!(decision.allowed[0].key, "allow.paths", "{command}");
    }
    let allowed = judge_command(&config, "rm -rf ~/scratch/old").allowed;
    assert_eq!(allowed[0].rule, "core.filesystem:rm-rf-general");
    assert_eq!(allowed[0].by.to_string(), format!("{USER}:2:27"));
    for command in [
        "rm -rf /srv/ci/workshop",
        "rm -rf /srv/ci/work/../etc",
        "rm -rf /srv/ci/work/build /srv/other",
        "rm -rf build",
        "rm -rf /srv/ci/work/$X",
        "find /srv -delete",
    ] {
        assert_ne!(rule(&config, command), "allow", "{command}");
    }
    assert!(
        judge_command(&config, "rm -rf /tmp/x").allowed.is_empty(),
        "a temporary directory needs no entry"
    );
    for (bad, why) in [
        ("/", "deleting everything"),
        ("~", "home directory itself"),
        ("relative/dir", "absolute"),
        ("/srv/../etc", "absolute"),
        ("/srv/*", "glob"),
    ] {
        let e = user_error(&format!("[allow]\npaths = [\"{bad}\"]\n"));
        assert!(e.message.contains(why), "{bad}: {e}");
    }
    let no_home = Config::parse(
        Path::new(USER),
        "[allow]\npaths = [\"~/scratch\"]\n",
        Level::User,
        None,
    )
    .expect_err("no home");
    assert!(no_home.message.contains("no home directory"), "{no_home}");
}

#[test]
fn a_project_file_that_tightens_blocks_more() {
    let user =
        user("[packs]\ndisable = [\"core.git\"]\n[rules]\ndisable = [\"system.disk:mkfs\"]\n");
    assert_eq!(rule(&user, "git reset --hard"), "allow");
    let tightened = user.clone().merged(
        project("[packs]\nenable = [\"core.git\"]\n[rules]\nenable = [\"system.disk:mkfs\"]\n")
            .expect("a project file that only enables"),
    );
    assert_eq!(rule(&tightened, "git reset --hard"), "core.git:reset-hard");
    assert_eq!(rule(&tightened, "mkfs.ext4 /dev/sdb1"), "system.disk:mkfs");
}

#[test]
fn a_project_file_that_loosens_is_rejected_naming_the_key() {
    for (text, key, at) in [
        (
            "[rules]\ndisable = [\"core.git:reset-hard\"]\n",
            "rules.disable",
            (2, 11),
        ),
        (
            "[packs]\nenable = []\ndisable = [\"core.git\"]\n",
            "packs.disable",
            (3, 11),
        ),
        ("[allow]\npaths = [\"/srv\"]\n", "allow", (1, 1)),
    ] {
        let e = project(text).expect_err("a loosening project file");
        assert_eq!(e.at, Some(at), "{e}");
        assert!(e.to_string().starts_with(PROJECT), "{e}");
        assert!(
            e.message
                .contains(&format!("`{key}` would loosen the guard")),
            "{e}"
        );
    }
}

#[test]
fn malformed_files_fail_at_their_line_and_column() {
    for (text, at, says) in [
        (
            "[rules]\ndisable = [\"core.git:reset-hard\"\n",
            (2, 33),
            "unclosed array",
        ),
        (
            "[rules]\ndisable = \"core.git:reset-hard\"\n",
            (2, 11),
            "sequence",
        ),
        (
            "[packs]\ndisable = [\"core.gti\"]\n",
            (2, 12),
            "unknown pack `core.gti`",
        ),
        (
            "\n[rules]\nenable = [\"core.git:nope\"]\n",
            (3, 11),
            "unknown rule `core.git:nope`",
        ),
        ("[rules]\ndisabled = []\n", (2, 1), "disabled"),
        ("[allowed]\n", (1, 2), "allowed"),
        (
            "[rules]\ndisable = [\"guard:unreadable\"]\n",
            (2, 12),
            "always on",
        ),
        (
            "[packs]\nenable = [\"core.git\"]\ndisable = [\"core.git\"]\n",
            (3, 12),
            "both packs.enable and packs.disable",
        ),
    ] {
        let e = user_error(text);
        assert_eq!(e.at, Some(at), "{text:?}: {e}");
        assert!(e.message.contains(says), "{text:?}: {e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{USER}:{}:{}: ", at.0, at.1)),
            "{e}"
        );
    }
}

#[test]
fn a_changed_file_takes_effect_on_the_next_call_of_a_resident_runner() {
    let dir = tempfile::tempdir().expect("tempdir");
    let user_file = dir.path().join("guards.toml");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".hooks")).expect("mkdir");
    let load = || config::load_with(Some(&user_file), &project);
    assert_eq!(
        rule(&load().expect("no files"), "git reset --hard"),
        "core.git:reset-hard",
        "missing files are no configuration"
    );
    std::fs::write(&user_file, "[packs]\ndisable = [\"core.git\"]\n").expect("write");
    let first = load().expect("valid");
    assert_eq!(rule(&first, "git reset --hard"), "allow");
    assert!(
        std::sync::Arc::ptr_eq(&first, &load().expect("valid")),
        "an unchanged file is not read again"
    );
    std::fs::write(
        project.join(".hooks/guards.toml"),
        "[rules]\nenable = [\"core.git:reset-hard\"]\n",
    )
    .expect("write");
    assert_eq!(
        rule(&load().expect("valid"), "git reset --hard"),
        "core.git:reset-hard"
    );
    std::fs::write(&user_file, "[packs]\ndisable = [\"core.git\"\n").expect("write");
    let e = load().expect_err("now malformed");
    assert_eq!(e.file, user_file);
    assert_eq!(e.at, Some((2, 22)));
    std::fs::remove_file(&user_file).expect("rm");
    assert!(load().is_ok(), "a removed file is no configuration again");
}

#[test]
fn the_readmes_example_is_a_valid_user_file() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Configuration")
        .nth(1)
        .expect("a Configuration section");
    let example = section
        .split("```toml\n")
        .nth(1)
        .and_then(|block| block.split("\n```").next())
        .expect("a toml block in it");
    let config = user(example);
    assert_eq!(rule(&config, "git branch -D topic"), "allow");
    assert_eq!(rule(&config, "git reset --hard"), "core.git:reset-hard");
}

#[test]
fn a_project_file_that_is_not_a_small_regular_file_is_an_error_and_never_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".hooks")).expect("mkdir");
    let file = project.join(".hooks/guards.toml");
    // A link to a device that never ends, as a repository can commit one.
    std::os::unix::fs::symlink("/dev/zero", &file).expect("symlink");
    let e = config::load_with(None, &project).expect_err("a device");
    assert_eq!(e.file, file);
    assert!(e.message.contains("not a file"), "{e}");
    std::fs::remove_file(&file).expect("rm");
    // A regular file past the bound: sparse, so the test writes nothing of it.
    let big = std::fs::File::create(&file).expect("create");
    big.set_len(config::MAX_BYTES as u64 + 1).expect("set_len");
    let e = config::load_with(None, &project).expect_err("too large");
    assert!(e.message.contains("larger than"), "{e}");
}
