//! Docs' user mentions (`userMentionInline {userId, fullName}`, on Docs' branch, not released
//! yet): read as `@Full Name`, kept where a rewrite of the text around them leaves that
//! `@Full Name`, and never created from markdown — an agent knows no user ids, and Docs has not
//! released them. Docs' transient `mentionSearchInline` (the picker shown while a person types
//! `@`) is never written either: nothing here makes one, and the writer refuses both as input.

use super::tree::{Inline, PropValue, Props, TextRun};

/// A persisted mention of a user.
pub const USER_MENTION_INLINE: &str = "userMentionInline";

/// The name a mention shows: none without a user (Docs shows such a mention as nothing).
pub(crate) fn mentioned_name(attrs: &Props) -> Option<&str> {
    let text = |key: &str| match attrs.get(key) {
        Some(PropValue::String(value)) if !value.trim().is_empty() => Some(value.as_str()),
        _ => None,
    };
    text("userId").and(text("fullName"))
}

/// The mentions `old` holds, in order, with the names they show.
pub(crate) fn mentions_of(old: &[Inline]) -> Vec<Props> {
    old.iter()
        .filter_map(|item| match item {
            Inline::Element { kind, attrs }
                if kind == USER_MENTION_INLINE && mentioned_name(attrs).is_some() =>
            {
                Some(attrs.clone())
            }
            _ => None,
        })
        .collect()
}

/// `new` (a rewrite's content, parsed from markdown) with each mention of `kept` back where
/// its `@Full Name` is written: the first such place in plain text (not in a link, not in a
/// place another mention took), each mention at most once. A `@Full Name` written without a
/// mention to keep stays text.
pub(crate) fn keep_mentions(new: Vec<Inline>, kept: &[Props]) -> Vec<Inline> {
    let mut out = new;
    for attrs in kept {
        let Some(name) = mentioned_name(attrs) else {
            continue;
        };
        let written = format!("@{name}");
        let found = out.iter().enumerate().find_map(|(i, item)| match item {
            Inline::Text(run) if run.link.is_none() => run.text.find(&written).map(|at| (i, at)),
            _ => None,
        });
        let Some((i, at)) = found else {
            continue;
        };
        let Inline::Text(run) = out.remove(i) else {
            unreachable!("found in a text run");
        };
        let (before, rest) = run.text.split_at(at);
        let after = &rest[written.len()..];
        let piece = |text: &str| {
            Inline::Text(TextRun {
                text: text.to_owned(),
                ..run.clone()
            })
        };
        let mut replacement = vec![];
        if !before.is_empty() {
            replacement.push(piece(before));
        }
        replacement.push(Inline::Element {
            kind: USER_MENTION_INLINE.to_owned(),
            attrs: attrs.clone(),
        });
        if !after.is_empty() {
            replacement.push(piece(after));
        }
        out.splice(i..i, replacement);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mention(user: &str, name: &str) -> Inline {
        Inline::Element {
            kind: USER_MENTION_INLINE.into(),
            attrs: Props::from([
                ("userId".into(), PropValue::String(user.into())),
                ("fullName".into(), PropValue::String(name.into())),
            ]),
        }
    }

    fn text(t: &str) -> Inline {
        Inline::Text(TextRun::plain(t))
    }

    #[test]
    fn a_mention_comes_back_where_its_name_is_written_once() {
        let old = [text("Ask "), mention("u1", "Ada Lovelace"), text(" today")];
        let kept = mentions_of(&old);
        let new = vec![text("Ask @Ada Lovelace and @Ada Lovelace tomorrow")];
        assert_eq!(
            keep_mentions(new, &kept),
            [
                text("Ask "),
                mention("u1", "Ada Lovelace"),
                text(" and @Ada Lovelace tomorrow")
            ]
        );
    }

    #[test]
    fn a_name_without_a_mention_to_keep_stays_text() {
        let new = vec![text("Ask @Grace Hopper")];
        assert_eq!(keep_mentions(new.clone(), &[]), new);
        let old = [mention("u1", "Ada Lovelace")];
        assert_eq!(keep_mentions(new.clone(), &mentions_of(&old)), new);
    }
}
