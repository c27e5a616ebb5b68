//! JSON-RPC 2.0 messages, one per line: what a line holds ([`Incoming`]), the error objects
//! ([`RpcError`]) and the line a message is written as.

use serde_json::{Map, Value, json};

use crate::json::{InputError, decode_object};

/// Invalid JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// Valid JSON that is not a JSON-RPC 2.0 message.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// A method the server does not have.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// Params that are not what the method takes (an unknown event or command, a payload that is
/// not its event).
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// The request was understood but could not be served: the session could not be built (its
/// hooks did not load), or the server is shutting down.
pub(crate) const SERVER_ERROR: i64 = -32000;
/// The server failed (a panic of the server itself, not of a handler).
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }

    fn to_json(&self) -> Value {
        json!({ "code": self.code, "message": self.message })
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// One line read from the client.
#[derive(Debug, PartialEq)]
pub(crate) enum Incoming {
    /// A request: it is answered.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification: it is not.
    Notification { method: String, params: Value },
    /// The answer to one of the server's requests.
    Response {
        id: Value,
        outcome: Result<Value, RpcError>,
    },
}

/// What line `number` holds; an error names the id of the request when one could be read
/// (`Null` otherwise), and is what the server answers.
pub(crate) fn parse(line: &[u8], number: u64) -> Result<Incoming, (Value, RpcError)> {
    let name = format!("stdin line {number}");
    let value: Map<String, Value> = decode_object(line, &name).map_err(|e| {
        let code = match e {
            // Valid JSON that is no object (`[1,2]`) is a request that is invalid.
            InputError::Syntax { .. }
                if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() =>
            {
                INVALID_REQUEST
            }
            InputError::Syntax { .. } | InputError::NotUtf8 { .. } | InputError::Empty { .. } => {
                PARSE_ERROR
            }
            _ => INVALID_REQUEST,
        };
        (Value::Null, RpcError::new(code, e.to_string()))
    })?;
    classify(value).map_err(|(id, message)| {
        (
            id,
            RpcError::new(INVALID_REQUEST, format!("{name}: {message}")),
        )
    })
}

fn classify(mut m: Map<String, Value>) -> Result<Incoming, (Value, String)> {
    let id = m.remove("id");
    let fail =
        |id: &Option<Value>, message: String| Err((id.clone().unwrap_or(Value::Null), message));
    match m.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => {
            return fail(
                &id,
                "not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\" is missing)".into(),
            );
        }
    }
    if let Some(id) = &id
        && !(id.is_string() || id.is_number() || id.is_null())
    {
        return fail(
            &None,
            format!("the id must be a string or a number, not {id}"),
        );
    }
    if let Some(method) = m.remove("method") {
        let Value::String(method) = method else {
            return fail(&id, format!("the method must be a string, not {method}"));
        };
        let params = match m.remove("params") {
            None => Value::Object(Map::new()),
            Some(p @ (Value::Object(_) | Value::Array(_))) => p,
            Some(other) => return fail(&id, format!("params must be an object, not {other}")),
        };
        return Ok(match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        });
    }
    let Some(id) = id else {
        return fail(
            &None,
            "a message needs a method (a request) or an id (a response)".into(),
        );
    };
    match (m.remove("result"), m.remove("error")) {
        (Some(result), None) => Ok(Incoming::Response {
            id,
            outcome: Ok(result),
        }),
        (None, Some(error)) => {
            let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            Ok(Incoming::Response {
                id,
                outcome: Err(RpcError::new(code, message)),
            })
        }
        _ => fail(
            &Some(id),
            "a response needs exactly one of result and error".into(),
        ),
    }
}

/// The line (without its newline) of the answer to the request `id`.
pub(crate) fn response(id: &Value, outcome: &Result<Value, RpcError>) -> Value {
    match outcome {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(e) => json!({ "jsonrpc": "2.0", "id": id, "error": e.to_json() }),
    }
}

/// A request from the server (`id`) or a notification (`None`).
pub(crate) fn request(id: Option<u64>, method: &str, params: Value) -> Value {
    match id {
        Some(id) => json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }),
        None => json!({ "jsonrpc": "2.0", "method": method, "params": params }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Result<Incoming, (Value, RpcError)> {
        parse(line.as_bytes(), 1)
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert_eq!(
            parsed(r#"{"jsonrpc":"2.0","id":1,"method":"describe"}"#),
            Ok(Incoming::Request {
                id: json!(1),
                method: "describe".into(),
                params: json!({}),
            })
        );
        assert_eq!(
            parsed(r#"{"jsonrpc":"2.0","method":"x","params":{"a":1}}"#),
            Ok(Incoming::Notification {
                method: "x".into(),
                params: json!({"a": 1}),
            })
        );
        assert_eq!(
            parsed(r#"{"jsonrpc":"2.0","id":"s1","result":true}"#),
            Ok(Incoming::Response {
                id: json!("s1"),
                outcome: Ok(json!(true)),
            })
        );
        assert_eq!(
            parsed(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}"#),
            Ok(Incoming::Response {
                id: json!(4),
                outcome: Err(RpcError::new(-1, "no")),
            })
        );
    }

    #[test]
    fn a_line_that_is_no_message_is_an_error_naming_what_is_wrong() {
        let (id, e) = parsed("{not json").unwrap_err();
        assert_eq!((id, e.code), (Value::Null, PARSE_ERROR));
        assert!(e.message.starts_with("stdin line 1:1:2:"), "{}", e.message);
        let (_, e) = parsed("[1,2]").unwrap_err();
        assert_eq!(e.code, INVALID_REQUEST);
        let (id, e) = parsed(r#"{"id":7,"method":"describe"}"#).unwrap_err();
        assert_eq!((id, e.code), (json!(7), INVALID_REQUEST));
        assert!(e.message.contains("\"jsonrpc\": \"2.0\""), "{}", e.message);
        let (id, e) = parsed(r#"{"jsonrpc":"2.0","id":8,"method":"emit","params":3}"#).unwrap_err();
        assert_eq!(id, json!(8));
        assert!(
            e.message.contains("params must be an object"),
            "{}",
            e.message
        );
        let (_, e) = parsed(r#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#).unwrap_err();
        assert!(e.message.contains("the id must be"), "{}", e.message);
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let (_, e) = parsed(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{deep}}}"#
        ))
        .unwrap_err();
        assert_eq!(e.code, INVALID_REQUEST);
        assert!(e.message.contains("nest"), "{}", e.message);
    }
}
