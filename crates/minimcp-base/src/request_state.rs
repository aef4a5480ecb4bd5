//! Sealing the 2026-07-28 `requestState` (multi round-trip requests).
//!
//! Between rounds the server keeps nothing: the answers collected so far travel to the client
//! inside `requestState` and come back with the retry. The spec treats that string as
//! attacker-controlled, so it is sealed with HMAC-SHA256 under a per-process key, bound to
//! the method, the target (tool or prompt name, or resource URI) and a digest of the
//! arguments, and it expires. A state that fails any check is rejected (−32602), and the
//! client can simply start over without it.
//!
//! Behind a load balancer every instance shares the key (`--state-key-file`), and a second
//! key is accepted while keys rotate: the retry may reach an instance that has not yet
//! switched, or come back with a state sealed just before the switch.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use crate::encoding::{base64url, base64url_decode, constant_time_eq, hmac_sha256, sha256};

/// How long a `requestState` stays valid.
pub const STATE_TTL_SECS: u64 = 600;

/// The keys of one process: states are sealed with `current`; a state sealed with
/// `previous` still opens (key rotation across many instances).
#[derive(Debug, Clone)]
pub struct StateKeys {
    /// The key new states are sealed with.
    pub current: [u8; 32],
    /// The key that was current before a rotation: states it sealed still open.
    pub previous: Option<[u8; 32]>,
}

/// Why a state that is not malformed was rejected: sealed with a key this process does not
/// hold (another deployment, a retired key) or altered since, which a MAC cannot tell apart.
const UNKNOWN_KEY: &str =
    "it was sealed with a key this server does not hold (another deployment or a retired key) or was altered";

/// What a state is bound to: the request it was issued for.
pub struct Binding<'a> {
    /// The request's method (`tools/call`, `prompts/get`, `resources/read`).
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
    /// The request's arguments, bound by their digest.
    pub arguments: &'a Value,
}

impl<'a> Binding<'a> {
    /// The binding of a `tools/call` of tool `name` with `arguments`.
    pub fn tool_call(name: &'a str, arguments: &'a Value) -> Self {
        Binding {
            method: "tools/call",
            target: name,
            arguments,
        }
    }

    fn digest(&self) -> String {
        base64url(&sha256(self.arguments.to_string().as_bytes()))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seals `answers` for the request described by `binding`.
pub fn seal(keys: &StateKeys, binding: &Binding<'_>, answers: &Map<String, Value>) -> String {
    seal_at(&keys.current, binding, answers, now())
}

fn seal_at(
    key: &[u8; 32],
    binding: &Binding<'_>,
    answers: &Map<String, Value>,
    issued: u64,
) -> String {
    let payload = json!({
        "m": binding.method,
        "t": binding.target,
        "d": binding.digest(),
        "a": answers,
        "x": issued + STATE_TTL_SECS,
    })
    .to_string();
    let mac = hmac_sha256(key, payload.as_bytes());
    format!("{}.{}", base64url(payload.as_bytes()), base64url(&mac))
}

/// Opens a sealed state; the error says why it was rejected.
pub fn open(
    keys: &StateKeys,
    binding: &Binding<'_>,
    state: &str,
) -> Result<Map<String, Value>, &'static str> {
    open_at(keys, binding, state, now())
}

fn open_at(
    keys: &StateKeys,
    binding: &Binding<'_>,
    state: &str,
    at: u64,
) -> Result<Map<String, Value>, &'static str> {
    let (payload, mac) = state.split_once('.').ok_or("malformed")?;
    let payload = base64url_decode(payload).ok_or("malformed")?;
    let mac = base64url_decode(mac).ok_or("malformed")?;
    let mut held = std::iter::once(&keys.current).chain(keys.previous.as_ref());
    if !held.any(|key| constant_time_eq(&mac, &hmac_sha256(key, &payload))) {
        return Err(UNKNOWN_KEY);
    }
    let mut payload: Map<String, Value> =
        serde_json::from_slice(&payload).map_err(|_| "malformed")?;
    if payload
        .get("x")
        .and_then(Value::as_u64)
        .is_none_or(|expiry| at > expiry)
    {
        return Err("it has expired (states are valid for 10 minutes)");
    }
    let bound = payload.get("m").and_then(Value::as_str) == Some(binding.method)
        && payload.get("t").and_then(Value::as_str) == Some(binding.target)
        && payload.get("d").and_then(Value::as_str) == Some(binding.digest().as_str());
    if !bound {
        return Err("it was issued for a different request");
    }
    match payload.remove("a") {
        Some(Value::Object(answers)) => Ok(answers),
        _ => Err("malformed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];
    const KEYS: StateKeys = StateKeys {
        current: KEY,
        previous: None,
    };

    fn only(key: [u8; 32]) -> StateKeys {
        StateKeys {
            current: key,
            previous: None,
        }
    }

    fn binding<'a>(target: &'a str, arguments: &'a Value) -> Binding<'a> {
        Binding {
            method: "tools/call",
            target,
            arguments,
        }
    }

    #[test]
    fn a_sealed_state_opens_for_the_same_request_only() {
        let args = json!({"path": "a.txt"});
        let answers: Map<String, Value> = json!({"elicitation-0": {"action": "accept"}})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let state = seal_at(&KEY, &binding("delete", &args), &answers, 1000);
        assert_eq!(
            open_at(&KEYS, &binding("delete", &args), &state, 1000),
            Ok(answers)
        );

        let other_args = json!({"path": "b.txt"});
        for (bind, at, key, why) in [
            (
                binding("other", &args),
                1000,
                KEY,
                "it was issued for a different request",
            ),
            (
                binding("delete", &other_args),
                1000,
                KEY,
                "it was issued for a different request",
            ),
            (
                binding("delete", &args),
                1000 + STATE_TTL_SECS + 1,
                KEY,
                "it has expired (states are valid for 10 minutes)",
            ),
            (binding("delete", &args), 1000, [8; 32], UNKNOWN_KEY),
        ] {
            assert_eq!(open_at(&only(key), &bind, &state, at), Err(why));
        }
    }

    #[test]
    fn tampering_is_detected() {
        let args = json!({});
        let state = seal_at(&KEY, &binding("t", &args), &Map::new(), 1000);
        let (payload, mac) = state.split_once('.').expect("two parts");
        let mut forged = base64url_decode(payload).expect("decodes");
        let text = String::from_utf8(forged.clone())
            .expect("utf8")
            .replace("\"a\":{}", "\"a\":{\"x\":1}");
        forged = text.into_bytes();
        let forged = format!("{}.{mac}", base64url(&forged));
        assert_eq!(
            open_at(&KEYS, &binding("t", &args), &forged, 1000),
            Err(UNKNOWN_KEY)
        );
        for garbage in ["", "abc", "a.b.c", "!!.!!"] {
            assert!(
                open_at(&KEYS, &binding("t", &args), garbage, 1000).is_err(),
                "{garbage}"
            );
        }
    }

    #[test]
    fn a_previous_key_still_opens_during_rotation() {
        let args = json!({});
        let old = seal_at(&[1; 32], &binding("t", &args), &Map::new(), 1000);
        let rotated = StateKeys {
            current: [2; 32],
            previous: Some([1; 32]),
        };
        assert!(open_at(&rotated, &binding("t", &args), &old, 1000).is_ok());
        // A state sealed after the rotation opens on an instance still holding the old
        // file only if that file lists the new key too (the first step of a rotation).
        let new = seal_at(&rotated.current, &binding("t", &args), &Map::new(), 1000);
        assert_eq!(
            open_at(&only([1; 32]), &binding("t", &args), &new, 1000),
            Err(UNKNOWN_KEY)
        );
        let first_step = StateKeys {
            current: [1; 32],
            previous: Some([2; 32]),
        };
        assert!(open_at(&first_step, &binding("t", &args), &new, 1000).is_ok());
    }
}
