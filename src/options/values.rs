//! The options every function takes, as the core uses them, and what follows from them (the limit,
//! the reserve, the summarizer's window).

use super::cache_prices::CachePrices;
use crate::compaction::template::Template;
use crate::counting::profiles::{Profile, O200K};
use crate::reading::format::Format;

/// OpenCode's placeholder for a cleared tool output.
pub const DEFAULT_PLACEHOLDER: &str = "[Old tool result content cleared]";

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Forced format; detected when `None`.
    pub format: Option<Format>,
    pub profile: Profile,
    /// The model's context window, in tokens; `None` means 128 000.
    pub context_window: Option<u32>,
    /// Tokens kept free for the model's answer; `None` means min(32 000, window / 4).
    pub reserved_output: Option<u32>,
    /// Compaction is needed above this fraction of (window − reserved output).
    pub threshold: f64,
    /// Keep at most this many recent user turns verbatim.
    pub keep_recent_turns: u32,
    /// Keep at most this many recent tokens verbatim; `None` means a quarter of the limit.
    pub keep_recent_tokens: Option<u32>,
    /// Alternatively, keep this fraction of the history's tokens verbatim.
    pub keep_fraction: Option<f64>,
    /// Prune: the newest tool outputs, up to this many tokens, are never cleared.
    pub protect_tokens: u32,
    /// Prune: clear nothing unless at least this many tokens would go.
    pub minimum_prune_tokens: u32,
    /// Tools whose outputs are never pruned or cut.
    pub protected_tools: Vec<String>,
    pub placeholder: String,
    /// Plan a compaction even when the history is under the threshold (a user's "/compact").
    pub force: bool,
    /// The context window of the model that writes the summary; `None` means `context_window`.
    pub summarizer_window: Option<u32>,
    /// Above this fraction of (window − reserved output) compaction is urgent: the request would fail
    /// or nearly so, and must not be sent before compacting. `None`: no hard limit.
    pub hard_threshold: Option<f64>,
    /// The form the summary is asked for.
    pub template: Template,
    /// What the provider reported for earlier requests of this history, oldest first.
    pub usage: Vec<Report>,
    /// A system prompt sent beside the messages (Anthropic `system`, Gemini `systemInstruction`).
    pub system: Option<String>,
    /// The request's tool definitions, each as its JSON text.
    pub tools: Vec<String>,
    /// The preset these options started from, if any.
    pub preset: Option<&'static str>,
    /// Compaction is also needed above this many input tokens, whatever the window.
    pub threshold_tokens: Option<u32>,
    /// Where the kept tail may start.
    pub split_at: SplitAt,
    /// How the messages to summarize are chosen.
    pub strategy: Strategy,
    /// Hierarchical strategy: about this many messages per chunk.
    pub chunk_messages: u32,
    /// Whether an earlier summary may be merged into a new one; when not, it stays as it is and a
    /// history with nothing else to compact gives `CANNOT_COMPACT_FURTHER`.
    pub resummarize: bool,
    /// Messages the host marks as never to be summarized (indices into the messages).
    pub pin: Vec<usize>,
    /// Keep critical messages verbatim: calls of `critical_tools`, results with errors, and user
    /// messages that state constraints.
    pub keep_critical: bool,
    /// None: `DEFAULT_CRITICAL_TOOLS`.
    pub critical_tools: Option<Vec<String>>,
    /// Facts of the summarized messages (ids, paths, errors, numbers, constraints) that a summary
    /// left out are appended to it, verbatim, within a bound (`apply_summary`).
    pub keep_facts: bool,
    /// The user's own messages among the summarized ones are quoted after the summary, verbatim: the
    /// first (the task) always, its middle cut when it alone is over the bound, then the newest that
    /// fit (`apply_summary`).
    pub keep_user_text: bool,
    /// How the summary is written back into the history.
    pub summary_shape: Shape,
    /// A line the summary message starts with (before our marker).
    pub summary_prefix: Option<String>,
    /// Show the newest user request to the summarizer, after the transcript, as context.
    pub include_latest_request: bool,
    /// Prune: the newest this-many tool outputs are never cleared, whatever their size.
    pub protect_results: u32,
    /// Prune: strings longer than this inside the arguments of calls whose outputs are cleared are cut.
    pub max_argument_chars: Option<u32>,
    /// Prune only when the tokens saved pay for the prompt cache the edit invalidates.
    pub cache: Option<CachePrices>,
    /// Plan a compaction when the newest user message starts a new topic (`compaction::topic`).
    pub topic_switch: bool,
    /// Plan to drop what lies before the newest provider compaction item even under the limit (over
    /// it, that goes first anyway).
    pub drop_before_provider_compaction: bool,
    /// What the options left to a guess, said in every result that has warnings.
    pub warnings: Vec<String>,
}

/// Where the kept tail may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitAt {
    /// Before a real user message when one is in reach, else between two complete tool exchanges.
    Exchange,
    /// Only before a real user message.
    User,
}

/// How the messages to summarize are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Everything before the kept tail, in one summary.
    Tail,
    /// The largest runs of tool exchanges first, each into its own summary, until the history is
    /// well under the limit; user and assistant text stay.
    Regions,
    /// Everything before the kept tail, in chunks summarized separately, then joined into one summary.
    Hierarchical,
}

/// How the summary is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One user message (merged into the next user turn in formats whose turns alternate).
    Message,
    /// A user turn asking what was done so far, and the summary as the assistant's answer.
    Exchange,
    /// A system message (where the format has system messages in the list; else `Message`).
    System,
    /// The summary as a user turn, and an assistant turn acknowledging it.
    Acknowledged,
}

impl SplitAt {
    pub fn name(self) -> &'static str {
        match self {
            SplitAt::Exchange => "exchange",
            SplitAt::User => "user",
        }
    }
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Tail => "tail",
            Strategy::Regions => "regions",
            Strategy::Hierarchical => "hierarchical",
        }
    }
}

impl Shape {
    pub const ALL: [Shape; 4] = [Shape::Message, Shape::Exchange, Shape::System, Shape::Acknowledged];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Message => "message",
            Shape::Exchange => "exchange",
            Shape::System => "system",
            Shape::Acknowledged => "acknowledged",
        }
    }
}

/// Critical tools when `keepCritical` is on and no list is given: tools that change files or run code,
/// whose calls say what was actually done.
pub const DEFAULT_CRITICAL_TOOLS: &[&str] = &[
    "write",
    "write_file",
    "edit",
    "edit_file",
    "multi_edit",
    "str_replace_editor",
    "str_replace_based_edit_tool",
    "create_file",
    "apply_patch",
    "patch",
    "execute_code",
    "run_code",
    "python",
    "code_interpreter",
];

/// One usage report: the provider counted `prompt_tokens` input tokens for a request made of the
/// first `message_count` messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The whole input, cached tokens included.
    pub prompt_tokens: u64,
    pub message_count: usize,
    /// How many of `prompt_tokens` were read from the provider's cache: reported, never added.
    pub cached_tokens: Option<u64>,
    /// Where it came from, for errors found later (`options.usage[1]`).
    pub path: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: None,
            profile: O200K,
            context_window: None,
            reserved_output: None,
            threshold: 0.8,
            keep_recent_turns: 2,
            keep_recent_tokens: None,
            keep_fraction: None,
            protect_tokens: 20_000,
            minimum_prune_tokens: 10_000,
            protected_tools: Vec::new(),
            placeholder: DEFAULT_PLACEHOLDER.to_string(),
            force: false,
            summarizer_window: None,
            hard_threshold: None,
            template: Template::Sections,
            usage: Vec::new(),
            system: None,
            tools: Vec::new(),
            preset: None,
            threshold_tokens: None,
            split_at: SplitAt::Exchange,
            strategy: Strategy::Tail,
            chunk_messages: 20,
            resummarize: true,
            pin: Vec::new(),
            keep_critical: false,
            keep_facts: true,
            keep_user_text: true,
            critical_tools: None,
            summary_shape: Shape::Message,
            summary_prefix: None,
            include_latest_request: false,
            protect_results: 0,
            max_argument_chars: None,
            cache: None,
            topic_switch: false,
            drop_before_provider_compaction: false,
            warnings: Vec::new(),
        }
    }
}

impl Options {
    pub fn context_window(&self) -> u32 {
        self.context_window.unwrap_or(128_000)
    }

    /// The summarizer's window: where the summary request (prompt and answer) must fit.
    pub fn summarizer_window(&self) -> u32 {
        self.summarizer_window.unwrap_or_else(|| self.context_window())
    }

    pub fn reserved_output(&self) -> u32 {
        self.reserved_output.unwrap_or((self.context_window() / 4).min(32_000))
    }

    /// Input tokens above which compaction is needed: the threshold's share of the window, or the
    /// absolute `thresholdTokens` when that is lower.
    pub fn limit(&self) -> u32 {
        let relative = self.limit_at(self.threshold);
        self.threshold_tokens.map_or(relative, |t| t.min(relative))
    }

    /// Input tokens above which compaction is urgent, with a `hardThreshold`.
    pub fn hard_limit(&self) -> Option<u32> {
        self.hard_threshold.map(|h| self.limit_at(h))
    }

    fn limit_at(&self, fraction: f64) -> u32 {
        let usable = f64::from(self.context_window().saturating_sub(self.reserved_output()));
        (usable * fraction).floor() as u32
    }

    pub fn is_protected_tool(&self, name: &str) -> bool {
        self.protected_tools.iter().any(|t| t == name)
    }
}
