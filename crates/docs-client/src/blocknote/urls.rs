//! Which link targets and media URLs may be written, and where a URL goes.
//!
//! A link or a media URL an agent writes is followed by whoever clicks it, and BlockNote's
//! exports (HTML, PDF, docx) keep it live. So new content holds only web addresses (`http:`,
//! `https:`), mail addresses for links (`mailto:`), and paths on the Docs instance (one `/`:
//! `/docs/<id>/`, as a link to another document exports to markdown, or `/media/…`); Docs
//! itself writes its uploads' URLs as absolute `http(s)` ones (`<origin>/media/<doc
//! id>/attachments/<uuid>.<ext>`). Any other relative address is refused: it would resolve
//! against wherever the document is shown (`//host/…` against another host).
//!
//! A URL is read as a browser reads it (WHATWG URL parsing, the `url` crate): the scheme is
//! case-insensitive, and leading controls and spaces and inner tabs and newlines are dropped,
//! so `JaVaScRiPt:`, ` javascript:` and `java\tscript:` are all `javascript:`. Markdown's
//! character references are decoded before (`&#106;avascript:` is `javascript:`); elsewhere
//! they and percent-encoding are no scheme (`%6Aavascript:` is a relative address).
//!
//! What a document holds is read as it is, never refused: a rewrite may keep the URLs of the
//! content it replaces ([`UrlInput::keeping`]), and an undo puts back what it read
//! ([`UrlInput::Any`]).
//!
//! The writes that put back what was read are the `*_as_read` ones. `block_urls` and `host_of`
//! serve previews: the URLs a block holds, and the host each goes to.

use url::Url;

use super::error::{ModelError, ModelResult};
use super::markdown::export::url_escape;
use super::tree::{Block, BlockContent, Inline, PropValue};

/// What a URL is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlUse {
    /// A link's target (the `link` mark's `href`).
    Link,
    /// The file of an image, video, audio, file or pdf block (its `url` prop).
    Media,
}

impl UrlUse {
    /// The schemes an absolute URL for this use may have.
    pub const fn schemes(self) -> &'static [&'static str] {
        match self {
            UrlUse::Link => &["http", "https", "mailto"],
            UrlUse::Media => &["http", "https"],
        }
    }
}

/// The prop holding a media block's URL (the only URL prop of the schema).
pub(crate) const URL_PROP: &str = "url";

/// Why `url` may not be written for `use_`; `None` when it may.
pub fn refusal(url: &str, use_: UrlUse) -> Option<String> {
    match Url::parse(url) {
        Ok(parsed) if use_.schemes().contains(&parsed.scheme()) => None,
        Ok(parsed) => Some(format!("its scheme `{}:` is not allowed", parsed.scheme())),
        Err(url::ParseError::RelativeUrlWithoutBase) if is_instance_path(url) => None,
        Err(url::ParseError::RelativeUrlWithoutBase) => Some(
            "it is a relative address, and only a path on the Docs instance (one `/` first) \
             may be"
                .into(),
        ),
        Err(e) => Some(format!("it is not a valid URL ({e})")),
    }
}

/// Whether a relative address is a path on the instance: `/` then neither `/` nor `\` (which
/// browsers read as `/`), once what browsers drop is dropped.
fn is_instance_path(url: &str) -> bool {
    let mut chars = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    chars.next() == Some('/') && !matches!(chars.next(), Some('/' | '\\'))
}

/// The host a URL goes to, with its port when it is not the scheme's default (as a browser's
/// `URL.host`; an internationalized name in its ASCII form, as it is resolved); `None` for a
/// relative address (on the Docs instance) and an address without a host (`mailto:`).
pub fn host_of(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    Some(match parsed.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    })
}

/// Which URLs content being written may hold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UrlInput {
    /// Those [`refusal`] lets through, and these as they are: the URLs of the content being
    /// replaced, which the document holds already.
    Kept(Vec<String>),
    /// Any: content read from the document, put back as it was (an undo).
    Any,
}

impl UrlInput {
    /// For new content: only allowed URLs.
    pub(crate) fn new_content() -> Self {
        Self::Kept(vec![])
    }

    /// These URLs as well (those of the content being replaced).
    pub(crate) fn keeping(self, urls: impl IntoIterator<Item = String>) -> Self {
        match self {
            Self::Kept(mut kept) => {
                kept.extend(urls);
                Self::Kept(kept)
            }
            Self::Any => Self::Any,
        }
    }

    /// Refuses `url` for `use_` unless allowed or kept; `what` names it for the error.
    pub(crate) fn check(
        &self,
        url: &str,
        use_: UrlUse,
        what: impl FnOnce() -> String,
    ) -> ModelResult<()> {
        let Self::Kept(kept) = self else {
            return Ok(());
        };
        if kept.iter().any(|k| k == url) {
            return Ok(());
        }
        match refusal(url, use_) {
            None => Ok(()),
            Some(reason) => Err(ModelError::UnsafeUrl {
                what: what(),
                url: url.to_owned(),
                reason,
            }),
        }
    }

    /// Checks a media block's `url` prop among `props` (the empty default is no media yet).
    pub(crate) fn check_props(
        &self,
        block_type: &str,
        props: &super::tree::Props,
    ) -> ModelResult<()> {
        match props.get(URL_PROP) {
            Some(PropValue::String(url)) if !url.is_empty() => {
                self.check(url, UrlUse::Media, || {
                    format!("prop `{URL_PROP}` of `{block_type}`")
                })
            }
            _ => Ok(()),
        }
    }
}

/// A link target or media URL in a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockUrl {
    pub url_use: UrlUse,
    pub url: String,
    /// The text it is on (a link), or the media's name (else its caption).
    pub text: String,
}

/// The link targets of inline content, in order: adjacent runs with one target are one link;
/// a link to another document (`interlinkingLinkInline`) goes to its path, `/docs/<id>/`.
fn inline_urls(inline: &[Inline], out: &mut Vec<BlockUrl>) {
    let mut open: Option<BlockUrl> = None;
    for piece in inline {
        match piece {
            Inline::Text(run) if run.link.is_some() => {
                let href = run.link.as_deref().unwrap_or_default();
                match &mut open {
                    Some(link) if link.url == href => link.text.push_str(&run.text),
                    _ => {
                        out.extend(open.take());
                        open = Some(BlockUrl {
                            url_use: UrlUse::Link,
                            url: href.to_owned(),
                            text: run.text.clone(),
                        });
                    }
                }
            }
            Inline::Element { kind, attrs } if kind == super::schema::INTERLINKING_LINK_INLINE => {
                out.extend(open.take());
                let attr = |name: &str| attrs.get(name).and_then(PropValue::as_str);
                if let Some(doc) = attr("docId") {
                    out.push(BlockUrl {
                        url_use: UrlUse::Link,
                        url: format!("/docs/{doc}/"),
                        text: attr("title").unwrap_or_default().to_owned(),
                    });
                }
            }
            _ => out.extend(open.take()),
        }
    }
    out.extend(open);
}

/// The link targets and the media URL of a block's own content and props (its nested blocks'
/// are theirs), in reading order.
pub fn block_urls(block: &Block) -> Vec<BlockUrl> {
    let mut out = vec![];
    let prop = |name: &str| block.props.get(name).and_then(PropValue::as_str);
    if let Some(url) = prop(URL_PROP).filter(|u| !u.is_empty()) {
        let name = [prop("name"), prop("caption")]
            .into_iter()
            .flatten()
            .find(|t| !t.is_empty());
        out.push(BlockUrl {
            url_use: UrlUse::Media,
            url: url.to_owned(),
            text: name.unwrap_or_default().to_owned(),
        });
    }
    match &block.content {
        BlockContent::Inline { inline } => inline_urls(inline, &mut out),
        BlockContent::Table { table } => {
            for cell in table.rows.iter().flat_map(|r| &r.cells) {
                inline_urls(&cell.content, &mut out);
            }
        }
        BlockContent::None | BlockContent::Opaque { .. } => {}
    }
    out
}

/// The link targets of inline content, which a rewrite may keep: each as it is and as
/// markdown writes it (a rewrite of the markdown read gives it back so).
pub(crate) fn inline_hrefs(inline: &[Inline]) -> impl Iterator<Item = String> + '_ {
    inline
        .iter()
        .filter_map(|piece| match piece {
            Inline::Text(run) => run.link.as_deref(),
            _ => None,
        })
        .flat_map(|href| [href.to_owned(), url_escape(href)])
}
