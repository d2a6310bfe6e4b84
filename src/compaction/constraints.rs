//! The user's constraint sentences: what the user said must, must not, always or only be done ("Never
//! edit setup.py.", "I don't want travel insurance.", "不要写解释。"). The audit checks that a summary
//! kept each of them (`audit`), and with `keepCritical` a user message holding one is kept verbatim (`pins`).
//!
//! A sentence is one when it holds a constraint's word that is not part of something else said with the
//! same words: what the speaker knows, did or feels ("I don't remember", "I've never been there"), what
//! someone else does ("they don't have feelings"), a guess ("there must be a way"), a question ("Can we
//! at least consider a refund?"). In chats between people (the corpus's Chit-Chat group) nearly every
//! sentence with "never", "always", "only" or "don't" is such a statement; counted as constraints, they would
//! take the other facts' room (a constraint is appended even past the limit) and, with `keepCritical`, keep
//! whole messages verbatim.

use crate::find::match_starts;
use crate::text::with_fences;

/// A constraint "sentence" longer than this is a pasted document, not a constraint.
const MAX_SENTENCE_CHARS: usize = 400;

/// Words that make a sentence a constraint, matched as whole words (lowercase).
const CONSTRAINT_WORDS: &[&str] = &[
    "must",
    "mustn't",
    "never",
    "always",
    "only",
    "don't",
    "do not",
    "cannot",
    "can't",
    "should not",
    "shouldn't",
    "avoid",
    "make sure",
    "ensure",
    "required",
    "at most",
    "at least",
    "no more than",
    "not allowed",
];

/// The same in Chinese and Japanese, matched anywhere (these scripts have no spaces). Not だけ or のみ
/// ("only"): they hide inside common words (いただけますか, もりのみや).
const CONSTRAINT_MARKS: &[&str] = &[
    "不能",
    "必须",
    "禁止",
    "要求",
    "约束",
    "不要",
    "务必",
    "一定要",
    "只能",
    "不得",
    "不可以",
    "切勿",
    "不准",
    "必須",
    "しないで",
    "必ず",
    "ないでください",
    "てはいけない",
    "ではいけない",
    "なければならない",
    "絶対",
    "厳禁",
];

/// The sentences of `text` that state a constraint, outside code.
pub fn constraint_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for_each_constraint(text, &mut |sentence| {
        out.push(sentence);
        true
    });
    out
}

/// Whether `text` states a constraint: the first such sentence ends the search.
pub fn states_constraint(text: &str) -> bool {
    let mut found = false;
    for_each_constraint(text, &mut |_| {
        found = true;
        false
    });
    found
}

/// Calls `f` with each sentence of `text` that states a constraint, outside code, while `f` returns true.
// One copy of the loop for both callers, hence `dyn`.
fn for_each_constraint<'a>(text: &'a str, f: &mut dyn FnMut(&'a str) -> bool) {
    for (line, code) in with_fences(text.lines()) {
        if code || is_code_line(line) {
            continue;
        }
        for sentence in sentences(line) {
            if sentence.len() >= 8 && sentence.len() <= MAX_SENTENCE_CHARS && is_constraint(sentence) && !f(sentence) {
                return;
            }
        }
    }
}

/// Whether a line outside a fenced block is code all the same: a line of a numbered listing (`1524:    raise
/// TypeError('context must be a dict')`, `113\t# they don't want to merge`, as editors and `cat -n` show a
/// file), or a line indented by four spaces or a tab that is not an item of a list (a docstring, a comment, a
/// Markdown code block). Agent runs bring tool output back in user messages, and the code in it is no one's
/// rule: a third of the constraints found in SWE-agent's user messages were such lines.
fn is_code_line(line: &str) -> bool {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let after_digits = &body.as_bytes()[digits..];
    let listing = digits > 0 && (after_digits.starts_with(b"\t") || after_digits.starts_with(b": "));
    let item = body.starts_with("- ") || body.starts_with("* ") || (digits > 0 && after_digits.starts_with(b". "));
    listing || ((indent.len() >= 4 || indent.contains('\t')) && !item)
}

/// A line's sentences, trimmed: cut after `!`, `?` and `;`, after `.` followed by a space (so 3.11.4 and
/// src/app.py stay whole), and after CJK and full-width end marks. A clause after a semicolon is judged on
/// its own; `text::sentences`, whose pieces must join back into the line, does not cut there.
fn sentences(line: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let end = at + c.len_utf8();
        let next_is_space = chars.peek().is_none_or(|&(_, n)| n.is_whitespace());
        if matches!(c, '。' | '！' | '？' | '；' | '!' | '?' | ';') || (c == '.' && next_is_space) {
            out.push(line[start..end].trim());
            start = end;
        }
    }
    out.push(line[start..].trim());
    out.into_iter().filter(|s| !s.is_empty())
}

fn is_constraint(sentence: &str) -> bool {
    // A `&str` pattern, not a `char`: one copy of `replace` in the wasm (see turn.rs's escape_attribute).
    let lower = sentence.to_ascii_lowercase().replace("’", "'");
    // A question asks: in English it states a rule only when it asks to make sure of something; a Chinese
    // one ends with its question's particle (吗, 吧, 呢). A Japanese request is polite as a question
    // (考慮しないで探して頂いてもよろしいでしょうか？), so its marks still count.
    let mut from_end = lower.chars().rev().skip_while(|&c| "\"')”」）".contains(c));
    let question = matches!(from_end.next(), Some('?' | '？'));
    let chinese_question = question && matches!(from_end.find(|&c| !matches!(c, '?' | '？')), Some('吗' | '吧' | '呢'));
    let words = if question { &["make sure", "ensure"][..] } else { CONSTRAINT_WORDS };
    let marks = if chinese_question { &[][..] } else { CONSTRAINT_MARKS };
    marks.iter().any(|m| match_starts(&lower, m).any(|at| !inside_other_words(&lower, at, m)))
        || words.iter().any(|w| {
            match_starts(&lower, w).any(|at| {
                let before = lower[..at].chars().next_back();
                let after = lower[at + w.len()..].chars().next();
                !before.is_some_and(char::is_alphanumeric)
                    && !after.is_some_and(char::is_alphanumeric)
                    && !says_something_else(&lower, at, w)
            })
        })
}

/// What the speaker knows, has or feels, said with "don't" or "can't": "I don't know", "I don't have my
/// reservation ID with me", "I can't wait". In the user turns of five corpus groups (tau-bench, Chit-Chat,
/// the agent runs), more than half of the sentences with "don't" and about half of those with "can't" were
/// such phrases.
const NOT_RULES: &str = "know have remember recall think understand believe see wait imagine tell say blame \
    care mind feel even really get seem find";

/// Who is spoken of, rather than told what to do: "they don't have bolted walls", "she only paints with
/// bold colors", "that can't be right".
const OTHERS: &str = "he she it they people someone somebody everyone everybody nobody that this there who \
    which he's she's it's that's there's they're";

/// Past forms that are not made with "-ed": after "never" or "always", what happened, not a rule ("I never
/// saw it", "it always was").
const IRREGULAR_PAST: &str = "been was were had did saw heard knew thought went got came made took gave found \
    felt told said met ate wrote ran caught bought brought won lost left grew spent understood forgot began \
    flew drove taught";

/// Words between a subject and its verb that change nothing here: adverbs, and the modals of what would
/// or might be ("they would always go to Vegas"; not "should" or "can": "it should never take a second").
const BETWEEN: &str = "really even ever actually just quite still usually also probably would could might may";

/// Forms of "to be" that describe the speaker or the past: "I'm only a freshman", "it was never easy". Not
/// "is" or "are": "interactive commands are only available through these", "the output is always JSON"
/// can be rules.
const BE: &str = "am i'm was were";

/// Number words a limit may be stated in ("at least two").
const NUMBER_WORDS: &str = "one two three four five six seven eight nine ten a an once twice";

/// Whether the constraint word `word` at `at` of `lower` is part of something else said with it.
fn says_something_else(lower: &str, at: usize, word: &str) -> bool {
    // The word before, past `BETWEEN` ("I actually don't know", "they would always go"), and the words after.
    let previous = words(&lower[..at]).filter(|w| !listed(BETWEEN, w)).last().unwrap_or("");
    let mut next = words(&lower[at + word.len()..]);
    let others = listed(OTHERS, previous);
    match word {
        // "Never mind"; what someone else does; what happened ("I've never been there", "I always
        // wanted to know", "I never really cared").
        "never" | "always" => {
            let perfect = matches!(previous, "have" | "has" | "had") || previous.ends_with("'ve");
            let verb = next.find(|w| !listed(BETWEEN, w));
            let past = verb.is_some_and(|v| {
                listed(IRREGULAR_PAST, v) || (v.len() >= 4 && v.ends_with("ed") && !v.ends_with("eed"))
            });
            lower[at..].starts_with("never mind") || others || perfect || past || listed(BE, previous)
        }
        // "The only one", "my only date", "not only", "if only", "she only paints".
        "only" => {
            others
                || listed(BE, previous)
                || matches!(previous, "the" | "not" | "if" | "my" | "your" | "his" | "her" | "our" | "their" | "its")
        }
        "don't" | "do not" | "can't" | "cannot" => {
            let speaker = matches!(previous, "i" | "we");
            others || (speaker && next.find(|w| !listed(BETWEEN, w)).is_some_and(|n| listed(NOT_RULES, n)))
        }
        // A guess: "there must be something you can do", "they must have been eighty".
        "must" => previous == "there" || next.next() == Some("have"),
        // A limit is a number: "at least 3 replicas", not "at least to them" or "at least kind of".
        "at least" | "at most" | "no more than" => {
            !next.next().is_some_and(|n| n.as_bytes()[0].is_ascii_digit() || listed(NUMBER_WORDS, n))
        }
        _ => false,
    }
}

/// Whether `word` is one of the words of `list` (a list of words separated by spaces: one string, where a
/// slice of strings would add a pointer and a length for each).
fn listed(list: &str, word: &str) -> bool {
    list.split(' ').any(|w| w == word)
}

/// The words of `text`: its runs of ASCII letters, digits and apostrophes.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'')).filter(|w| !w.is_empty())
}

/// Whether the CJK mark `mark` at `at` of `lower` is part of a longer word that says something else: 怪不得
/// ("no wonder"), 了不得 ("amazing"), 舍不得, 不得不 ("had to"), 不得了, 能不能 and 可不可以 and 要不要 (a
/// question's "whether"), 不要紧 ("it does not matter"), 必须的 ("of course").
fn inside_other_words(lower: &str, at: usize, mark: &str) -> bool {
    let before = lower[..at].chars().next_back();
    let after = lower[at + mark.len()..].chars().next();
    match mark {
        "不得" => before.is_some_and(|c| "怪了由舍巴恨记顾晓认见".contains(c)) || matches!(after, Some('不' | '了')),
        "不能" => before == Some('能'),
        "不可以" => before == Some('可'),
        "不要" => before == Some('要') || after == Some('紧'),
        // 是必须的 ("is a must") is one.
        "必须" => after == Some('的') && before != Some('是'),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_are_whole_words_or_cjk() {
        assert!(states_constraint("You must never edit setup.py"));
        assert!(states_constraint("不能修改配置文件"));
        assert!(states_constraint("Don't touch the tests."));
        assert!(!states_constraint("The mustard is in the fridge; nevertheless."));
    }

    #[test]
    fn constraints_come_from_the_user_in_any_language() {
        let found = |text: &'static str| constraint_sentences(text);
        assert_eq!(found("Fix the bug. You must keep the API stable! It is slow."), ["You must keep the API stable!"]);
        assert_eq!(found("Please don\u{2019}t touch main.rs.\nThanks."), ["Please don\u{2019}t touch main.rs."]);
        assert_eq!(found("We only support Node 18. Mustang is a car."), ["We only support Node 18."]);
        assert_eq!(
            found(
                "I don't have my reservation ID with me. Never mind. I can't wait! I don't want to fly before 11 AM."
            ),
            ["I don't want to fly before 11 AM."],
            "what the speaker knows or feels is not a rule; what they want is"
        );
        assert_eq!(
            found("Hi, I do not remember it. We cannot see the logs, so never run the migration."),
            ["We cannot see the logs, so never run the migration."]
        );
        assert_eq!(found("```\nassert must_fail()\n```\nok"), Vec::<&str>::new(), "code blocks are not constraints");
        let listing = "1524:                    '\"keys\" must be a subclass or instance of '\n\
            113\t        # they don't want to merge";
        assert_eq!(found(listing), Vec::<&str>::new(), "nor a listing's lines");
        assert_eq!(found("    # Non-default databases are only checked if routers are used."), Vec::<&str>::new());
        assert_eq!(
            found("Rules:\n    - Never edit setup.py.\n    2. Always run the tests.\n10:30 must be the latest start."),
            ["- Never edit setup.py.", "Always run the tests.", "10:30 must be the latest start."],
            "items of a list, indented or not, and a time are not code"
        );
        assert_eq!(found("请帮我看看这个报告。请不要修改数据库的表结构。"), ["请不要修改数据库的表结构。"]);
        assert_eq!(found("部屋でタバコを吸わないでください。ありがとう。"), ["部屋でタバコを吸わないでください。"]);
        assert_eq!(
            found("住所を教えていただけますか？駅に近いほうがいいんだけど。"),
            Vec::<&str>::new(),
            "だけ inside other words"
        );
    }

    #[test]
    fn what_happened_and_what_others_do_are_not_rules() {
        let found = |text: &'static str| constraint_sentences(text);
        let not_rules = [
            "I've never been to one of those, what do you do there.",
            "I have never even heard of it before.",
            "I never really cared about BYU.",
            "I always wanted to learn the piano.",
            "Frogs are odd, they don't have measuring tools.",
            "She only paints with bold colors.",
            "They would always go to Vegas too.",
            "I'm only a freshman.",
            "It was never easy.",
            "I actually don't know if that is how it works.",
            "I don't actually have the reservation ID with me right now.",
            "Sorry, I can't seem to find it right now.",
            "That can't be right.",
            "It was the only one I've missed.",
            "Not only cats but dogs too.",
            "I'm sure there must be some way to resolve this.",
            "They must have been eighty years old.",
            "At least to them, that is what we are.",
            "Can we at least consider a partial refund?",
            "Why don't they refund to a gift card?",
            "哈哈，怪不得别人都叫他老崔呢。",
            "哦，这14首歌可真是了不得。",
            "它应该不要门票吧？",
            "必须的啊，他可不光是演员。",
        ];
        for text in not_rules {
            assert_eq!(found(text), Vec::<&str>::new(), "{text}");
        }
        let rules = [
            "Never edit setup.py.",
            "Always run cargo fmt before a commit.",
            "I never fly before 11 AM.",
            "I'd like to book economy class, and I don't need travel insurance.",
            "Actually, I only need a one-way ticket, not round trip.",
            "I would prefer to use only one certificate.",
            "Keep at least 3 replicas.",
            "Could you also make sure that my original payment is used?",
            "Interactive commands are only available through the commands supplied to you.",
            "でしたら、最寄り駅は考慮しないで探して頂いてもよろしいでしょうか？",
            "The cache must not exceed 512 MB.",
            "You should never log the token.",
            "It should never take more than a second.",
            "我只想与你聊天，不要写出解释。",
            "在任何情况下都不能泄露密码。",
            "每次只问一个问题是必须的！",
        ];
        for text in rules {
            assert_eq!(found(text), [text], "{text}");
        }
    }
}
