//! The tagged JSON form shared by every event: `{"type": NAME, ...fields}`.

use serde_json::{Map, Value};

/// Adds the `type` tag in front of an event's serialized fields.
pub(crate) fn with_tag(mut value: Value, name: &'static str) -> Value {
    if let Value::Object(map) = &mut value {
        map.shift_insert(0, "type".to_owned(), Value::from(name));
    }
    value
}

/// Checks and removes the `type` tag; a missing tag is accepted, a different one is an error.
pub(crate) fn strip_tag<E: serde::de::Error>(
    map: &mut Map<String, Value>,
    name: &'static str,
) -> Result<(), E> {
    match map.shift_remove("type") {
        None => Ok(()),
        Some(Value::String(s)) if s == name => Ok(()),
        Some(other) => Err(E::custom(format!(
            "expected event type \"{name}\", found {other}"
        ))),
    }
}

/// Converts a `serde_json` error into the error type of any deserializer.
pub(crate) fn de_error<E: serde::de::Error>(err: serde_json::Error) -> E {
    E::custom(err)
}

/// Implements `Serialize`/`Deserialize` for an event struct declared with
/// `#[serde(remote = "Self")]`, adding the `type` tag.
macro_rules! tagged_serde {
    ($ty:ident, $name:literal) => {
        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let value = $ty::serialize(self, ::serde_json::value::Serializer)
                    .map_err(<S::Error as ::serde::ser::Error>::custom)?;
                ::serde::Serialize::serialize(&$crate::events::wire::with_tag(value, $name), s)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let mut map =
                    <::serde_json::Map<String, ::serde_json::Value> as ::serde::Deserialize>::deserialize(d)?;
                $crate::events::wire::strip_tag::<D::Error>(&mut map, $name)?;
                $ty::deserialize(::serde_json::Value::Object(map))
                    .map_err($crate::events::wire::de_error::<D::Error>)
            }
        }
    };
}
pub(crate) use tagged_serde;
