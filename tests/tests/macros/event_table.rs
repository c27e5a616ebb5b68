//! The macros' event table (name -> type) agrees with `hookwright::events`: same names, same
//! order as `EventKind::ALL`, and each type's `HookEvent::NAME` is its name.

use std::str::FromStr as _;

use hookwright::events::EventKind;

#[test]
fn the_macro_table_matches_event_kind_all() {
    let table: &[(&str, &str, &str)] = hookwright::__private::event_table!();
    let names: Vec<&str> = table.iter().map(|(name, _, _)| *name).collect();
    let all: Vec<&str> = EventKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(names, all);
    for (name, ty, type_name) in table {
        assert_eq!(
            name, type_name,
            "`{ty}::NAME` is `{type_name}`, the table says `{name}`"
        );
        assert!(EventKind::from_str(name).is_ok(), "{name}");
    }
    assert_eq!(table.len(), EventKind::COUNT);
}
