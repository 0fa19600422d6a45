//! `--set`-style overrides on a scenario document, with the rules of the Python package's
//! `airtcp.apply_overrides` (`python/airtcp/scenario.py`), so that Rust tests derive a variant of a
//! scenario the way users and the Python tests do: `flows.0.cc=bbr`, `links.1.channel.loss=0.01`.
//!
//! A path's parts index tables by key and arrays of tables by integer (negative counts from the
//! end); missing tables along the way are created, a missing array index is an error. The value
//! is read as a TOML value (`3`, `0.01`, `true`, `"x"`, `[1, 2]`, `{ kind = "uniform" }`), and
//! anything that is not valid TOML is kept as a string, so `sack`, `20s` and `10Mbps` need no
//! quotes.

use toml::{Table, Value};

/// The scenario `text` with the assignments `sets` applied in order, as TOML text (comments and
/// layout are not kept). Errors are one line, naming the assignment.
pub fn apply_overrides(text: &str, sets: &[&str]) -> Result<String, String> {
    let mut doc: Table = text.parse().map_err(|e: toml::de::Error| format!("the scenario is not TOML: {}", e.message()))?;
    for s in sets {
        apply_override(&mut doc, s)?;
    }
    toml::to_string(&doc).map_err(|e| e.to_string())
}

/// Applies one `dotted.path=value` assignment to `doc` in place.
pub(crate) fn apply_override(doc: &mut Table, assignment: &str) -> Result<(), String> {
    let (key, raw) =
        assignment.split_once('=').ok_or_else(|| format!("--set '{assignment}': expected KEY=VALUE, e.g. flows.0.recovery=sack"))?;
    set_path(doc, key, parse_value(raw.trim())).map_err(|e| format!("--set '{assignment}': {e}"))
}

/// Reads an override value as a TOML value, or keeps it as a string.
pub(crate) fn parse_value(text: &str) -> Value {
    match format!("v = {text}").parse::<Table>() {
        Ok(mut t) => t.remove("v").unwrap_or_else(|| Value::String(text.into())),
        Err(_) => Value::String(text.into()),
    }
}

/// Sets `doc[a][b][0][c] = value` for the dotted path `key = "a.b.0.c"`.
pub(crate) fn set_path(doc: &mut Table, key: &str, value: Value) -> Result<(), String> {
    let key = key.trim();
    let parts: Vec<&str> = key.split('.').collect();
    if key.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err(format!("empty key or empty part in '{key}'"));
    }
    let (last, path) = parts.split_last().expect("at least one part");
    let mut node = Node::Table(doc);
    let mut walked: Vec<&str> = Vec::new();
    for part in path {
        let where_ = if walked.is_empty() { "<root>".to_string() } else { walked.join(".") };
        node = node.step(part, &where_, true)?;
        walked.push(part);
    }
    let where_ = if walked.is_empty() { "<root>".to_string() } else { walked.join(".") };
    match node {
        Node::Table(t) => {
            t.insert((*last).to_string(), value);
        }
        Node::Array(a) => {
            let i = index(a.len(), last, &where_)?;
            a[i] = value;
        }
        Node::Value(v) => return Err(format!("'{where_}' is a value ({}), not a table or array", v.type_str())),
    }
    Ok(())
}

/// Where a path stands: a table, an array, or a plain value (which cannot be indexed).
enum Node<'a> {
    Table(&'a mut Table),
    Array(&'a mut Vec<Value>),
    Value(&'a Value),
}

impl<'a> Node<'a> {
    fn of(v: &'a mut Value) -> Node<'a> {
        match v {
            Value::Table(t) => Node::Table(t),
            Value::Array(a) => Node::Array(a),
            other => Node::Value(other),
        }
    }

    /// `self[part]`; a missing table entry is created as an empty table when `create`.
    fn step(self, part: &str, where_: &str, create: bool) -> Result<Node<'a>, String> {
        match self {
            Node::Table(t) => {
                if create && !t.contains_key(part) {
                    t.insert(part.to_string(), Value::Table(Table::new()));
                }
                t.get_mut(part).map(Node::of).ok_or_else(|| format!("'{where_}' has no '{part}'"))
            }
            Node::Array(a) => {
                let i = index(a.len(), part, where_)?;
                Ok(Node::of(&mut a[i]))
            }
            Node::Value(v) => Err(format!("'{where_}' is a value ({}), not a table or array", v.type_str())),
        }
    }
}

/// An array index (negative from the end), checked against `len`.
fn index(len: usize, part: &str, where_: &str) -> Result<usize, String> {
    let i: i64 = part.parse().map_err(|_| format!("'{where_}' is an array: index it with an integer, not '{part}'"))?;
    let n = len as i64;
    if !(-n..n).contains(&i) {
        return Err(format!("'{where_}' has {len} entries: no index {i}"));
    }
    Ok(if i < 0 { (n + i) as usize } else { i as usize })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Python doctest's case, and the value and path rules one by one.
    #[test]
    fn overrides_follow_the_python_rules() {
        let out = apply_overrides("[[flows]]\nrecovery = \"reno\"\n", &["flows.0.recovery=sack", "duration=20s"]).unwrap();
        let t: Table = out.parse().unwrap();
        assert_eq!(t["flows"][0]["recovery"].as_str(), Some("sack"));
        assert_eq!(t["duration"].as_str(), Some("20s"));
        // Typed values; a negative index; a table created on the way; a whole inline table.
        let out = apply_overrides(
            "[[links]]\nrate = \"1Mbps\"\n[[links]]\nrate = \"2Mbps\"\n",
            &["links.-1.delay_pkts=3", "links.0.channel.loss=0.01", "links.1.queue={ kind = \"droptail\", limit_pkts = 5 }", "x=true"],
        )
        .unwrap();
        let t: Table = out.parse().unwrap();
        assert_eq!(t["links"][1]["delay_pkts"].as_integer(), Some(3));
        assert_eq!(t["links"][0]["channel"]["loss"].as_float(), Some(0.01));
        assert_eq!(t["links"][1]["queue"]["limit_pkts"].as_integer(), Some(5));
        assert_eq!(t["x"].as_bool(), Some(true));
        // Errors: one line, naming the assignment.
        for (set, says) in [
            ("flows.3.cc=reno", "has 1 entries: no index 3"),
            ("flows.x.cc=reno", "index it with an integer, not 'x'"),
            ("flows.0.recovery.kind=a", "'flows.0.recovery' is a value (string)"),
            ("flows..cc=reno", "empty key or empty part"),
            ("flows", "expected KEY=VALUE"),
        ] {
            let e = apply_overrides("[[flows]]\nrecovery = \"reno\"\n", &[set]).unwrap_err();
            assert!(e.contains(says) && e.contains(set) && !e.contains('\n'), "{set}: {e}");
        }
    }
}
