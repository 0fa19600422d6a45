//! `--set`-style overrides on a scenario document: `flows.0.cc=bbr`, `links.1.channel.loss=0.01`.
//! This is the one implementation of the rule: the Python package's `airtcp.apply_overrides`,
//! `set_path` and `airtcp run --set` call it through `airtcp._core`, and the Rust tests derive
//! their scenario variants with it.
//!
//! A path's parts index tables by key and arrays by integer (negative counts from the end);
//! missing tables along the way are created, a missing array index is an error. The value is read
//! as a TOML value (`3`, `0.01`, `true`, `"x"`, `[1, 2]`, `{ kind = "uniform" }`), and anything
//! that is not valid TOML is kept as a string, so `sack`, `20s` and `10Mbps` need no quotes.
//!
//! The document is edited with `toml_edit`, so the user's layout, key order and comments survive
//! and an engine error about a part no override touched can be traced back to the user's own
//! file and line ([`locate_error`]). A value an override writes is laid out afresh in TOML 1.0
//! form (the Python package reads the result with `tomllib`, a TOML 1.0 reader).

use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike, Value};

/// An override value as [`parse_value`] reads it, written as a TOML document whose key `v` holds
/// it: how the Python package's `parse_value` gets the engine's reading of a `--set` or `--grid`
/// value.
pub fn value_document(text: &str) -> Result<String, String> {
    let mut doc = DocumentMut::new();
    doc.insert("v", Item::Value(parse_value(text)?));
    Ok(doc.to_string())
}

/// The longest override value read (a scenario file itself may be far longer).
pub const MAX_VALUE_CHARS: usize = 1 << 20;
/// The most parts a dotted key may have, and the deepest nesting a value may have: no scenario
/// needs more than a few levels.
pub const MAX_DEPTH: usize = 64;

/// The scenario `text` with the assignments `sets` applied in order, as TOML text. Errors are one
/// line, naming the assignment.
pub fn apply_overrides(text: &str, sets: &[&str]) -> Result<String, String> {
    let mut doc = parse_doc(text)?;
    for s in sets {
        apply_override(&mut doc, s)?;
    }
    Ok(doc.to_string())
}

/// The scenario `text` with each `(key, value)` of `values` set in order, where each value is a
/// TOML document whose key `v` holds the value (how the Python package hands over values that are
/// already typed: a sweep's grid points, an experiment's assignments). Errors name the key.
/// Also returns the path each value was set at, array indices counted from the start (so that a
/// caller that sent only the containers along the path can put the value into its own copy).
pub fn set_values(text: &str, values: &[(&str, &str)]) -> Result<(String, Vec<Vec<String>>), String> {
    let mut doc = parse_doc(text)?;
    let mut paths = Vec::new();
    for (key, value_doc) in values {
        let value = value_doc
            .parse::<DocumentMut>()
            .ok()
            .and_then(|mut d| d.as_table_mut().remove("v"))
            .and_then(|item| item.into_value().ok())
            .ok_or_else(|| format!("value for '{key}' is not a TOML document with a key 'v'"))?;
        paths.push(set_path(&mut doc, key, canonical(&value, 0)?)?);
    }
    Ok((doc.to_string(), paths))
}

fn parse_doc(text: &str) -> Result<DocumentMut, String> {
    text.parse::<DocumentMut>().map_err(|e| format!("the scenario is not TOML: {}", one_line(e.message())))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Applies one `dotted.path=value` assignment to `doc` in place; returns the path it set, with
/// array indices counted from the start.
fn apply_override(doc: &mut DocumentMut, assignment: &str) -> Result<Vec<String>, String> {
    let (key, raw) =
        assignment.split_once('=').ok_or_else(|| format!("--set '{assignment}': expected KEY=VALUE, e.g. flows.0.recovery=sack"))?;
    let set = |doc: &mut DocumentMut| -> Result<Vec<String>, String> {
        let value = parse_value(trim(raw))?;
        set_path(doc, key, value)
    };
    set(doc).map_err(|e| format!("--set '{assignment}': {e}"))
}

/// `text` without leading and trailing whitespace as Python's `str.strip` sees it (Unicode white
/// space and the four information separators U+001C..U+001F), so a value is read as it always was.
fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Reads an override value as a TOML value, or keeps it as a string. A value longer than
/// [`MAX_VALUE_CHARS`] or nested deeper than [`MAX_DEPTH`] is an error, and so is an integer TOML
/// cannot hold (it would otherwise be kept as a string and fail later with a worse message).
pub fn parse_value(text: &str) -> Result<Value, String> {
    let chars = text.chars().count();
    if chars > MAX_VALUE_CHARS {
        return Err(format!("value of {chars} characters (allowed: up to {MAX_VALUE_CHARS})"));
    }
    match format!("v = {text}").parse::<DocumentMut>() {
        Ok(mut d) => match d.as_table_mut().remove("v").map(Item::into_value) {
            Some(Ok(v)) => canonical(&v, 0).map_err(|e| format!("value {}: {e}", head(text))),
            _ => Ok(Value::from(text)),
        },
        Err(e) if e.message().contains("recursion") => Err(format!("value {}: {TOO_DEEP}", head(text))),
        Err(_) if is_integer_literal(text) => Err(format!("value {}: {TOO_LONG_INT}", head(text))),
        Err(_) => Ok(Value::from(text)),
    }
}

/// The reason for a value nested deeper than any scenario needs.
pub const TOO_DEEP: &str = "arrays or tables nested too deeply";
/// The reason for an integer TOML cannot hold.
pub const TOO_LONG_INT: &str = "an integer out of range (TOML integers are 64-bit: -2^63 to 2^63-1)";

/// A TOML decimal integer (sign, no leading zero, underscores only between digits) that a 64-bit
/// integer cannot hold: the one case where a value TOML reads as an integer fails to parse.
fn is_integer_literal(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    let b = digits.as_bytes();
    let well_formed = !b.is_empty()
        && b.iter().all(|&c| c.is_ascii_digit() || c == b'_')
        && b[0].is_ascii_digit()
        && b[b.len() - 1].is_ascii_digit()
        && !digits.contains("__")
        && (b[0] != b'0' || b.len() == 1);
    well_formed && text.replace('_', "").parse::<i64>().is_err()
}

/// The first 40 characters of `text`, quoted as Python's `repr` would for plain text, for an
/// error message ("..." when cut).
fn head(text: &str) -> String {
    let cut: String = text.chars().take(40).collect();
    let more = if text.chars().count() > 40 { "..." } else { "" };
    format!("'{}'{more}", cut.escape_debug())
}

/// `v` laid out afresh (default spacing, basic strings, decimal numbers): the user's TOML 1.1
/// spellings (`\e`, a trailing comma in an inline table) become TOML 1.0 that any reader takes.
fn canonical(v: &Value, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(TOO_DEEP.into());
    }
    Ok(match v {
        Value::String(s) => Value::from(s.value().as_str()),
        Value::Integer(i) => Value::from(*i.value()),
        Value::Float(f) => Value::from(*f.value()),
        Value::Boolean(b) => Value::from(*b.value()),
        Value::Datetime(d) => Value::from(*d.value()),
        Value::Array(a) => {
            let mut out = Array::new();
            for x in a.iter() {
                out.push(canonical(x, depth + 1)?);
            }
            Value::Array(out)
        }
        Value::InlineTable(t) => {
            let mut out = InlineTable::new();
            for (k, x) in t.iter() {
                out.insert(k, canonical(x, depth + 1)?);
            }
            Value::InlineTable(out)
        }
    })
}

/// Sets `doc[a][b][0][c] = value` for the dotted path `key = "a.b.0.c"`; returns the path set,
/// with array indices counted from the start.
fn set_path(doc: &mut DocumentMut, key: &str, value: Value) -> Result<Vec<String>, String> {
    let key = trim(key);
    let parts: Vec<&str> = key.split('.').collect();
    if key.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err(format!("empty key or empty part in '{key}'"));
    }
    if parts.len() > MAX_DEPTH {
        return Err(format!("key {} has {} parts (allowed: up to {MAX_DEPTH})", head(key), parts.len()));
    }
    let (last, path) = parts.split_last().expect("at least one part");
    let mut node = Node::Table(doc.as_table_mut());
    // The path resolved (indices from the start), and as typed (what messages show).
    let mut resolved: Vec<String> = Vec::new();
    for (i, part) in path.iter().enumerate() {
        let (next, index) = node.step(part, &where_(&parts[..i]))?;
        node = next;
        resolved.push(index);
    }
    resolved.push(node.set(last, value, &where_(path))?);
    Ok(resolved)
}

fn where_(walked: &[&str]) -> String {
    if walked.is_empty() {
        "<root>".to_string()
    } else {
        walked.join(".")
    }
}

/// Where a path stands: a table (a `[table]` or an inline one), an array of `[[tables]]` (the item
/// that holds it, so that a non-table value can turn it into a plain array), a plain array, or a
/// plain value, which cannot be indexed.
enum Node<'a> {
    Table(&'a mut dyn TableLike),
    Tables(&'a mut Item),
    Array(&'a mut Array),
    Value(&'static str),
}

impl<'a> Node<'a> {
    fn of_item(item: &'a mut Item) -> Node<'a> {
        if item.is_array_of_tables() {
            return Node::Tables(item);
        }
        match item {
            Item::Value(v) => Node::of_value(v),
            Item::Table(t) => Node::Table(t),
            other => Node::Value(type_name(other)),
        }
    }

    fn of_value(v: &'a mut Value) -> Node<'a> {
        match v {
            Value::InlineTable(t) => Node::Table(t),
            Value::Array(a) => Node::Array(a),
            other => Node::Value(value_type_name(other)),
        }
    }

    /// `self[part]`, creating a missing table entry as an empty table; also returns `part` with
    /// an array index counted from the start.
    fn step(self, part: &str, where_: &str) -> Result<(Node<'a>, String), String> {
        match self {
            Node::Table(t) => {
                if !t.contains_key(part) {
                    let mut new = Table::new();
                    new.set_implicit(true);
                    t.insert(part, Item::Table(new));
                }
                let item = t.get_mut(part).ok_or_else(|| format!("'{where_}' has no '{part}'"))?;
                Ok((Node::of_item(item), part.to_string()))
            }
            Node::Tables(item) => {
                let aot = item.as_array_of_tables_mut().expect("an array of tables");
                let i = index(aot.len(), part, where_)?;
                Ok((Node::Table(aot.get_mut(i).expect("index checked")), i.to_string()))
            }
            Node::Array(a) => {
                let i = index(a.len(), part, where_)?;
                Ok((Node::of_value(a.get_mut(i).expect("index checked")), i.to_string()))
            }
            Node::Value(t) => Err(format!("'{where_}' is a value ({t}), not a table or array")),
        }
    }

    /// `self[part] = value`; returns `part` with an array index counted from the start.
    fn set(self, part: &str, value: Value, where_: &str) -> Result<String, String> {
        match self {
            Node::Table(t) => {
                let decor = t.get(part).and_then(Item::as_value).map(|v| v.decor().clone());
                let mut value = value;
                if let Some(d) = decor {
                    *value.decor_mut() = d; // keeps a trailing comment on the line
                }
                match t.get_mut(part) {
                    Some(item) => *item = Item::Value(value), // the key keeps its comments
                    None => {
                        t.insert(part, Item::Value(value));
                    }
                }
                Ok(part.to_string())
            }
            Node::Tables(item) => {
                let n = item.as_array_of_tables().map_or(0, ArrayOfTables::len);
                let i = index(n, part, where_)?;
                match value {
                    Value::InlineTable(t) => {
                        let aot = item.as_array_of_tables_mut().expect("an array of tables");
                        aot.replace(i, t.into_table());
                    }
                    other => {
                        // Not a table: the `[[tables]]` become a plain array of inline tables.
                        let aot = std::mem::take(item).into_array_of_tables().expect("an array of tables");
                        let mut a = aot.into_array();
                        a.replace(i, other);
                        *item = Item::Value(Value::Array(a));
                    }
                }
                Ok(i.to_string())
            }
            Node::Array(a) => {
                let i = index(a.len(), part, where_)?;
                a.replace(i, value);
                Ok(i.to_string())
            }
            Node::Value(t) => Err(format!("'{where_}' is a value ({t}), not a table or array")),
        }
    }
}

fn value_type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Integer(_) => "integer",
        Value::Float(_) => "float",
        Value::Boolean(_) => "boolean",
        Value::Datetime(_) => "datetime",
        Value::Array(_) => "array",
        Value::InlineTable(_) => "table",
    }
}

fn type_name(item: &Item) -> &'static str {
    match item {
        Item::Value(v) => value_type_name(v),
        _ => "table",
    }
}

/// An array index (negative from the end), checked against `len`.
fn index(len: usize, part: &str, where_: &str) -> Result<usize, String> {
    let ok = {
        let digits = part.strip_prefix('-').unwrap_or(part);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if !ok {
        return Err(format!("'{where_}' is an array: index it with an integer, not '{part}'"));
    }
    let n = len as i128;
    let i: i128 = part.parse().unwrap_or(i128::MAX);
    if !(-n..n).contains(&i) {
        // As Python's int() writes it: no leading zeros, no "-0".
        let (minus, digits) = part.strip_prefix('-').map_or(("", part), |d| ("-", d));
        let digits = digits.trim_start_matches('0');
        let shown = if digits.is_empty() { "0".to_string() } else { format!("{minus}{digits}") };
        return Err(format!("'{where_}' has {len} entries: no index {shown}"));
    }
    Ok(if i < 0 { (n + i) as usize } else { i as usize })
}

/// An engine error `message` about the scenario made by applying `sets` to `original` (the user's
/// file, named `source`), pointed back at the user's input. `original_error` is what the engine
/// says about `original` itself (None when it is valid): an error it shares was not caused by the
/// overrides and names the user's `source` and line (not a line of the regenerated text); an
/// error the overrides caused names the `--set` whose path it is at (or inside), else every
/// `--set` given. A message it cannot place loses only its line.
pub fn locate_error(message: &str, original: &str, source: &str, sets: &[&str], original_error: Option<&str>) -> String {
    let Some((head, rest)) = message.split_once(": ") else { return message.to_string() };
    let (path, had_line) = match head.rsplit_once(" (line ") {
        Some((p, l)) if l.ends_with(')') => (p, true),
        _ => (head, false),
    };
    let Some(parts) = path_parts(path) else { return message.to_string() };
    let caused = original_error.map(without_line).as_deref() != Some(without_line(message).as_str());
    if caused && !sets.is_empty() {
        // The paths the assignments set, as the regenerated document has them.
        let mut set_paths: Vec<(&str, Vec<String>)> = Vec::new();
        if let Ok(mut doc) = parse_doc(original) {
            for s in sets {
                if let Ok(p) = apply_override(&mut doc, s) {
                    set_paths.push((s, p));
                }
            }
        }
        let touches = |p: &[String]| {
            let n = p.len().min(parts.len());
            !parts.is_empty() && p[..n] == parts[..n]
        };
        let named = match set_paths.iter().rev().find(|(_, p)| touches(p)) {
            Some((assignment, _)) => vec![*assignment],
            None => sets.to_vec(),
        };
        let named: Vec<String> = named.iter().map(|s| format!("--set '{s}'")).collect();
        return format!("{}: {path}: {rest}", named.join(", "));
    }
    match line_in(original, &parts) {
        Some(line) => format!("{path} ({source}:{line}): {rest}"),
        None if had_line => format!("{path}: {rest}"),
        None => message.to_string(),
    }
}

/// `message` without the " (line N)" of its field path.
fn without_line(message: &str) -> String {
    match message.split_once(": ").and_then(|(head, rest)| Some((head.rsplit_once(" (line ")?.0, rest))) {
        Some((path, rest)) => format!("{path}: {rest}"),
        None => message.to_string(),
    }
}

/// `flows[0].cc` as `["flows", "0", "cc"]`; `scenario` (the whole document) as no parts. None for
/// a head that is not a field path.
fn path_parts(path: &str) -> Option<Vec<String>> {
    if path == "scenario" {
        return Some(Vec::new());
    }
    let mut parts = Vec::new();
    for dotted in path.split('.') {
        let (name, mut tail) = dotted.split_once('[').map_or((dotted, ""), |(n, t)| (n, t));
        if name.is_empty() || name.contains(char::is_whitespace) {
            return None;
        }
        parts.push(name.to_string());
        while !tail.is_empty() {
            let (i, after) = tail.split_once(']')?;
            i.parse::<usize>().ok()?;
            parts.push(i.to_string());
            tail = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(parts)
}

/// The 1-based line in `text` where the field at `parts` is written (its key, or for an array
/// entry the entry itself), when the document has it.
fn line_in(text: &str, parts: &[String]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    if parts.is_empty() {
        return None;
    }
    let doc = DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut value: Option<&DeValue<'_>> = None;
    let mut pos = 0;
    for part in parts {
        let next = match value {
            None => table.iter().find(|(k, _)| k.get_ref().as_ref() == part.as_str()).map(|(k, v)| (k.span().start, v)),
            Some(DeValue::Table(t)) => t.iter().find(|(k, _)| k.get_ref().as_ref() == part.as_str()).map(|(k, v)| (k.span().start, v)),
            Some(DeValue::Array(a)) => part.parse::<usize>().ok().and_then(|i| a.get(i)).map(|v| (v.span().start, v)),
            Some(_) => None,
        }?;
        pos = next.0;
        value = Some(next.1.get_ref());
        if let DeValue::Table(t) = next.1.get_ref() {
            table = t;
        }
    }
    Some(text[..pos.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// The Python doctest's case, and the value and path rules one by one.
    #[test]
    fn overrides_follow_the_python_rules() {
        let out = apply_overrides("[[flows]]\nrecovery = \"reno\"\n", &["flows.0.recovery=sack", "duration=20s"]).unwrap();
        let t = table(&out);
        assert_eq!(t["flows"][0]["recovery"].as_str(), Some("sack"));
        assert_eq!(t["duration"].as_str(), Some("20s"));
        // Typed values; a negative index; a table created on the way; a whole inline table.
        let out = apply_overrides(
            "[[links]]\nrate = \"1Mbps\"\n[[links]]\nrate = \"2Mbps\"\n",
            &["links.-1.delay_pkts=3", "links.0.channel.loss=0.01", "links.1.queue={ kind = \"droptail\", limit_pkts = 5 }", "x=true"],
        )
        .unwrap();
        let t = table(&out);
        assert_eq!(t["links"][1]["delay_pkts"].as_integer(), Some(3));
        assert_eq!(t["links"][0]["channel"]["loss"].as_float(), Some(0.01));
        assert_eq!(t["links"][1]["queue"]["limit_pkts"].as_integer(), Some(5));
        assert_eq!(t["x"].as_bool(), Some(true));
        // Not TOML integers (a leading zero): kept as strings, as before.
        let t = table(&apply_overrides("", &["a=00", "b=0_1", "c=-00000000000000000000001"]).unwrap());
        assert_eq!((t["a"].as_str(), t["b"].as_str(), t["c"].as_str()), (Some("00"), Some("0_1"), Some("-00000000000000000000001")));
        // A whole entry of an array of tables replaced by a table, then by a plain value.
        let t = table(&apply_overrides("[[f]]\na = 1\n[[f]]\na = 2\n", &["f.0={ b = 3 }"]).unwrap());
        assert_eq!(t["f"][0].as_table().map(|x| x.len()), Some(1));
        assert_eq!(t["f"][0]["b"].as_integer(), Some(3));
        let t = table(&apply_overrides("[[f]]\na = 1\n[[f]]\na = 2\n", &["f.1=x"]).unwrap());
        assert_eq!(t["f"][1].as_str(), Some("x"));
        assert_eq!(t["f"][0]["a"].as_integer(), Some(1));
        // Errors: one line, naming the assignment.
        for (set, says) in [
            ("flows.3.cc=reno", "has 1 entries: no index 3"),
            ("flows.-2.cc=reno", "has 1 entries: no index -2"),
            ("flows.x.cc=reno", "index it with an integer, not 'x'"),
            ("flows.0.recovery.kind=a", "'flows.0.recovery' is a value (string)"),
            ("flows..cc=reno", "empty key or empty part"),
            ("=3", "empty key or empty part in ''"),
            ("flows", "expected KEY=VALUE"),
            ("x=99999999999999999999", TOO_LONG_INT),
            ("x=-9_223_372_036_854_775_809", TOO_LONG_INT),
        ] {
            let e = apply_overrides("[[flows]]\nrecovery = \"reno\"\n", &[set]).unwrap_err();
            assert!(e.contains(says) && e.contains(set) && !e.contains('\n'), "{set}: {e}");
        }
    }

    /// The user's layout survives: comments, key order, and the lines of everything untouched.
    #[test]
    fn overrides_keep_the_users_layout() {
        let text = "# my scenario\nname = \"a\" # the name\nduration = \"10s\"\n\n[[flows]]\ncc = \"reno\" # why reno\nsrc = \"x\"\n";
        let out = apply_overrides(text, &["flows.0.cc=bbr", "name=b"]).unwrap();
        assert_eq!(out, text.replace("\"reno\"", "\"bbr\"").replace("\"a\"", "\"b\""));
        // A TOML 1.1 spelling in a value is written back as TOML 1.0.
        let out = apply_overrides("", &["x={ a = \"\\e\", b = 1, }"]).unwrap();
        assert_eq!(out.trim(), "x = { a = \"\\u001B\", b = 1 }");
    }

    /// Typed values handed over as a one-key document.
    #[test]
    fn set_values_takes_typed_values() {
        let (out, paths) =
            set_values("[[flows]]\ncc = \"reno\"\n", &[("flows.-1.cc", "v = \"bbr\"\n"), ("a.b", "[v]\nc = [1, 2]\n")]).unwrap();
        assert_eq!(paths, [vec!["flows", "0", "cc"], vec!["a", "b"]]);
        let t = table(&out);
        assert_eq!(t["flows"][0]["cc"].as_str(), Some("bbr"));
        assert_eq!(t["a"]["b"]["c"][1].as_integer(), Some(2));
        assert!(set_values("", &[("a", "w = 1")]).unwrap_err().contains("key 'v'"));
    }

    /// An error the overrides caused names the `--set` (the one at its path, else all); an error
    /// the user's file has anyway names the file and line, never a line of the regenerated text.
    #[test]
    fn errors_point_at_the_users_input() {
        let original = "name = \"a\"\n\n[[flows]]\ncc = \"reno\"\nbogus = 1\n\n[[flows]]\ncc = \"vegas\"\n";
        let sets = ["flows.-1.mss_bytes=-3", "flows.0.cc=nope"];
        let anyway = Some("flows[0].bogus (line 5): unknown field `bogus`");
        let e = locate_error("flows[1].mss_bytes (line 9): invalid value: integer `-3`, expected u32", original, "s.toml", &sets, anyway);
        assert_eq!(e, "--set 'flows.-1.mss_bytes=-3': flows[1].mss_bytes: invalid value: integer `-3`, expected u32");
        let e = locate_error("flows[0].cc: unknown window policy 'nope'", original, "s.toml", &sets, anyway);
        assert_eq!(e, "--set 'flows.0.cc=nope': flows[0].cc: unknown window policy 'nope'");
        // Inside a table an override set (a kind-tagged table's own error has its path).
        let e = locate_error("flows[0]: unknown kind", original, "s.toml", &["flows.0.kind=x"], None);
        assert_eq!(e, "--set 'flows.0.kind=x': flows[0]: unknown kind");
        // Caused, at no override's path: every --set is named.
        let e = locate_error("links[0].from: unknown node 'a'", original, "s.toml", &sets, None);
        assert_eq!(e, "--set 'flows.-1.mss_bytes=-3', --set 'flows.0.cc=nope': links[0].from: unknown node 'a'");
        // The file has it anyway: its own line (5), not the regenerated one (7).
        let e = locate_error("flows[0].bogus (line 7): unknown field `bogus`", original, "s.toml", &sets, anyway);
        assert_eq!(e, "flows[0].bogus (s.toml:5): unknown field `bogus`");
        let e = locate_error("flows[1].cc: x", original, "s.toml", &sets, Some("flows[1].cc: x"));
        assert_eq!(e, "flows[1].cc (s.toml:8): x");
        // Not in the user's file: the regenerated line goes.
        let e = locate_error("flows[1].ecn (line 12): bad", original, "s.toml", &sets, Some("flows[1].ecn: bad"));
        assert_eq!(e, "flows[1].ecn: bad");
        let e = locate_error("scenario (line 3): something", original, "s.toml", &sets, Some("scenario (line 2): something"));
        assert_eq!(e, "scenario: something");
    }
}
