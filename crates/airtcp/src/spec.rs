//! What every model kind's scenario table shares, at the bottom of the house so that a kind's file
//! (a channel, a queue, a capacity model, an application) can own its spec, its checks and its
//! registry line without importing `scenario`: the one-line error naming a field, the range
//! checks the kinds have in common, and the `kind`-tagged table that a registry deserializes.

use std::fmt;

use crate::time::{DataRate, SimDuration};

/// A problem with a scenario, as one line naming the field and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub message: String,
}

impl ScenarioError {
    pub fn new(field: impl fmt::Display, msg: impl fmt::Display) -> Self {
        ScenarioError { message: format!("{field}: {msg}") }
    }
}

/// Written as one line: a line break or other control character that the message echoes from the
/// scenario (a node, flow or file name with an escaped newline) is written as its Rust escape
/// (`\n`, `\u{85}`), as are the Unicode line and paragraph separators. Python's
/// `str.splitlines` breaks lines at all of these, and the API and CLI promise one-line errors
/// (fuzzing finding, issue 25 part 6: `unknown node 'x\ny'` was two lines). Tabs are kept.
impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let breaks = |c: char| (c.is_control() && c != '\t') || c == '\u{2028}' || c == '\u{2029}';
        if !self.message.contains(breaks) {
            return f.write_str(&self.message);
        }
        for c in self.message.chars() {
            if breaks(c) {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// `Err` of a [`ScenarioError`] naming `field`.
pub(crate) fn err<T>(field: impl fmt::Display, msg: impl fmt::Display) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(field, msg))
}

/// The most characters of a user's text (a name, a line of a file) that an error quotes: a
/// message stays one readable line whatever the input, and a scenario naming a file that is not
/// a trace (`/etc/shadow`) does not get its content printed (issue 39).
pub(crate) const QUOTE_MAX_CHARS: usize = 40;

/// `s` as an error quotes it: whole when short, else its first [`QUOTE_MAX_CHARS`] characters
/// and an ellipsis with the length left out.
pub(crate) fn quote(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(QUOTE_MAX_CHARS) {
        None => std::borrow::Cow::Borrowed(s),
        Some((cut, _)) => std::borrow::Cow::Owned(format!("{}… ({} more bytes)", &s[..cut], s.len() - cut)),
    }
}

/// The longest queue, receiver window or initial window, in packets. A million 1500-byte packets
/// is 1.5 GB of buffer: beyond it a value is a typo, and it would size allocations.
pub(crate) const MAX_PKTS: u32 = 1_000_000;

/// The shortest mean time or period of anything that recurs on its own (timers, on/off and call
/// processes, Gilbert–Elliott sojourns): 1 µs. Below it a single flow or channel makes a billion
/// events per simulated second, and the run looks hung (1 ns used to).
pub(crate) const MIN_PERIOD_NS: u64 = 1_000;

/// A count in packets (queue limit, windows): 1 to [`MAX_PKTS`].
pub(crate) fn pkts(field: String, v: u32) -> Result<(), ScenarioError> {
    if !(1..=MAX_PKTS).contains(&v) {
        return err(field, format!("{v} is out of range (allowed: 1 to {MAX_PKTS})"));
    }
    Ok(())
}

/// A recurring period or mean time: at least [`MIN_PERIOD_NS`].
pub(crate) fn period(field: String, d: SimDuration) -> Result<(), ScenarioError> {
    if d.as_nanos() < MIN_PERIOD_NS {
        return err(field, format!("{}ns is out of range (allowed: 1us to 10000000s)", d.as_nanos()));
    }
    Ok(())
}

/// A probability: 0 to 1.
pub(crate) fn probability(field: String, p: f64) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return err(field, format!("{p} is out of range (allowed: 0 to 1)"));
    }
    Ok(())
}

/// A duration that must not be zero.
pub(crate) fn positive(field: String, d: SimDuration) -> Result<(), ScenarioError> {
    if d.as_nanos() == 0 {
        return err(field, "must be greater than 0s");
    }
    Ok(())
}

/// Marks a field path inside a `kind`-tagged table so `scenario::parse` can append it to the
/// outer path (serde loses paths inside tagged tables otherwise).
pub(crate) const INNER_PATH_MARK: char = '\u{1}';

/// One entry of a model kind's registry: the `kind` name a scenario table gives, and the function
/// that deserializes the rest of the table into that kind's spec (`S` is the kind's spec trait,
/// e.g. `dyn channel::ChannelKind`). Errors are [`INNER_PATH_MARK`]-prefixed "path: message".
pub(crate) struct Entry<S: ?Sized + 'static> {
    pub(crate) name: &'static str,
    pub(crate) parse: fn(toml::Value) -> Result<std::sync::Arc<S>, String>,
}

/// Deserializes a kind's table (the `kind` key removed) into its spec type `T`, keeping the
/// field path inside it for the error ("links[0].channel.loss", not just "links[0].channel").
pub(crate) fn table<T: serde::de::DeserializeOwned>(value: toml::Value) -> Result<T, String> {
    with_path(value, Some(INNER_PATH_MARK))
}

/// Deserializes `value` into `T`; an error reads "path: message" when it lies inside the value
/// ("message" alone at its top), the path prefixed with `mark` when there is one (see
/// [`INNER_PATH_MARK`]: a table inside a `kind`-tagged one). The one place that turns a serde
/// error into the text of a scenario error, for kind tables and the window policies'
/// `cc_params` alike.
pub(crate) fn with_path<T: serde::de::DeserializeOwned>(value: toml::Value, mark: Option<char>) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let msg = e.into_inner().message().to_string();
        match mark {
            _ if path.is_empty() || path == "." => msg,
            Some(mark) => format!("{mark}{path}: {msg}"),
            None => format!("{path}: {msg}"),
        }
    })
}

/// The registry entry a `kind`-tagged table (or a bare preset name: `queue = "cw"` means
/// `queue = { kind = "cw" }`) names, and the spec it deserializes into; `what` names the kind of
/// model in the errors ("unknown queue kind 'x' (allowed: …)").
pub(crate) fn tagged<'de, D, S>(d: D, what: &str, registry: &[Entry<S>]) -> Result<(&'static str, std::sync::Arc<S>), D::Error>
where
    D: serde::Deserializer<'de>,
    S: ?Sized,
{
    use serde::de::Error;
    let allowed = registry.iter().map(|e| e.name).collect::<Vec<_>>().join(", ");
    let (kind, table) = kind_and_table::<D>(d, what, &allowed)?;
    lookup(&kind, table, what, &allowed, registry).map_err(D::Error::custom)
}

/// A `kind`-tagged table split into its kind and the rest of the table (see [`tagged`]).
pub(crate) fn kind_and_table<'de, D: serde::Deserializer<'de>>(d: D, what: &str, allowed: &str) -> Result<(String, toml::Value), D::Error> {
    use serde::de::Error;
    use serde::Deserialize;
    let mut table = match toml::Value::deserialize(d)? {
        toml::Value::String(k) => toml::Table::from_iter([("kind".to_string(), toml::Value::String(k))]),
        toml::Value::Table(t) => t,
        _ => return Err(D::Error::custom(format!("must be a table or a preset name (allowed: {allowed})"))),
    };
    match table.remove("kind") {
        Some(toml::Value::String(k)) => Ok((k, toml::Value::Table(table))),
        Some(_) => Err(D::Error::custom(format!("{INNER_PATH_MARK}kind: must be a string (allowed: {allowed})"))),
        None => Err(D::Error::custom(format!("missing field `kind` of this {what} (allowed: {allowed})"))),
    }
}

/// The spec the table of kind `kind` deserializes into, by `registry`.
pub(crate) fn lookup<S: ?Sized>(
    kind: &str,
    table: toml::Value,
    what: &str,
    allowed: &str,
    registry: &[Entry<S>],
) -> Result<(&'static str, std::sync::Arc<S>), String> {
    let Some(entry) = registry.iter().find(|e| e.name == kind) else {
        return Err(format!("{INNER_PATH_MARK}kind: unknown {what} kind '{kind}' (allowed: {allowed})"));
    };
    (entry.parse)(table).map(|s| (entry.name, s))
}

/// One step of a rate schedule (a CBR flow's `schedule`, a capacity's `steps`): from `at` on,
/// the rate is `rate`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RateStep {
    pub at: SimDuration,
    pub rate: DataRate,
}
