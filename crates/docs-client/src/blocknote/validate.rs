//! Validation of new blocks and content against the schema, before anything is written.

use super::error::{ModelError, ModelResult};
use super::markdown::import::parse_inline_with;
use super::markdown::math::MathInput;
use super::nesting::check_height;
use super::read::default_value;
use super::schema::{
    ALIGNMENTS, BlockSpec, CELL_PROPS, COLORS, ContentKind, EditorSchema, INTERLINK_ATTRS,
    INTERLINKING_LINK_INLINE, MATH_NOT_IN_RELEASE, PropDefault, PropSpec, PropType, TABLE_CELL,
    TABLE_HEADER, block_spec, writable_names,
};
use super::tree::{Inline, NewBlock, NewContent, PropValue, Props, TableContent};
use super::urls::{UrlInput, UrlUse};
use super::writing::Writing;

/// Content of a validated block, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Prepared {
    None,
    Inline(Vec<Inline>),
    Code(String),
    Table(TableContent),
}

/// A validated block: full props (defaults filled), resolved content, validated children.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PreparedBlock {
    pub spec: &'static BlockSpec,
    pub props: Props,
    pub content: Prepared,
    pub children: Vec<PreparedBlock>,
}

pub(crate) fn writable_spec(kind: &str, schema: EditorSchema) -> ModelResult<&'static BlockSpec> {
    let spec = block_spec(kind).ok_or_else(|| ModelError::UnknownBlockType {
        block_type: kind.to_string(),
        allowed: writable_names(schema),
    })?;
    check_writable(spec, schema)?;
    Ok(spec)
}

/// Refuses a type not written to an instance of `schema`, saying why.
pub(crate) fn check_writable(spec: &BlockSpec, schema: EditorSchema) -> ModelResult<()> {
    match spec.not_written(schema) {
        Some(reason) => Err(ModelError::NotWritable {
            block_type: spec.name.to_string(),
            reason: reason.to_string(),
        }),
        None => Ok(()),
    }
}

pub(crate) fn check_prop(block_type: &str, spec: &PropSpec, v: &PropValue) -> ModelResult<()> {
    let wrong = |expected: String| ModelError::WrongPropType {
        block_type: block_type.to_string(),
        prop: spec.name.to_string(),
        expected,
        got: match v {
            PropValue::String(s) => format!("\"{s}\""),
            PropValue::Number(n) => n.to_string(),
            PropValue::Bool(b) => b.to_string(),
            PropValue::Undefined => "null".to_string(),
        },
    };
    match (spec.ty, v) {
        (_, PropValue::Undefined) if spec.default == PropDefault::Undefined => Ok(()),
        (PropType::String, PropValue::String(s)) => match spec.values {
            Some(values) if !values.contains(&s.as_str()) => {
                Err(wrong(format!("one of {}", values.join(", "))))
            }
            _ => Ok(()),
        },
        (PropType::Number, PropValue::Number(n)) => {
            if !n.is_finite() {
                return Err(wrong("a finite number".into()));
            }
            match spec.name {
                "level" if !(1.0..=6.0).contains(n) || n.fract() != 0.0 => {
                    Err(wrong("an integer from 1 to 6".into()))
                }
                "colspan" | "rowspan" | "start" if *n < 0.0 || n.fract() != 0.0 => {
                    Err(wrong("a non-negative integer".into()))
                }
                _ => Ok(()),
            }
        }
        (PropType::Bool, PropValue::Bool(_)) => Ok(()),
        (ty, _) => Err(wrong(if spec.default == PropDefault::Undefined {
            format!("{} or null", ty.describe())
        } else {
            ty.describe().to_string()
        })),
    }
}

pub(crate) fn check_props(block_type: &str, specs: &[PropSpec], props: &Props) -> ModelResult<()> {
    for (k, v) in props {
        let spec = specs
            .iter()
            .find(|p| p.name == k)
            .ok_or_else(|| ModelError::UnknownProp {
                block_type: block_type.to_string(),
                prop: k.clone(),
                allowed: if specs.is_empty() {
                    "(none)".to_string()
                } else {
                    specs.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                },
            })?;
        check_prop(block_type, spec, v)?;
    }
    Ok(())
}

pub(crate) fn full_props(specs: &[PropSpec], given: &Props) -> Props {
    specs
        .iter()
        .map(|p| {
            (
                p.name.to_string(),
                given
                    .get(p.name)
                    .cloned()
                    .unwrap_or_else(|| default_value(p)),
            )
        })
        .collect()
}

/// Checks inline content against the schema (marks, colors, inline elements, the inline math
/// `math` allows, the link targets `urls` allows).
pub(crate) fn check_inline(
    block_type: &str,
    inline: &[Inline],
    math: &mut MathInput,
    urls: &UrlInput,
) -> ModelResult<()> {
    for i in inline {
        match i {
            Inline::Text(r) => {
                for c in [&r.styles.text_color, &r.styles.background_color]
                    .into_iter()
                    .flatten()
                {
                    if !COLORS.contains(&c.as_str()) {
                        return Err(ModelError::InvalidContent {
                            block_type: block_type.to_string(),
                            problem: format!(
                                "uses the color `{c}`; colors are {}",
                                COLORS.join(", ")
                            ),
                        });
                    }
                }
                if let Some(h) = &r.link {
                    if h.trim().is_empty() {
                        return Err(ModelError::InvalidContent {
                            block_type: block_type.to_string(),
                            problem: "has a link without href".to_string(),
                        });
                    }
                    urls.check(h, UrlUse::Link, || "the link target".into())?;
                }
            }
            Inline::HardBreak => {}
            Inline::Math { latex } => {
                if !math.take(latex) {
                    return Err(ModelError::InvalidContent {
                        block_type: block_type.to_string(),
                        problem: format!(
                            "holds inline math `{latex}` that is not already there, and \
                             {MATH_NOT_IN_RELEASE}; write the formula as text"
                        ),
                    });
                }
            }
            Inline::Element { kind, attrs } => {
                if kind != INTERLINKING_LINK_INLINE {
                    return Err(ModelError::UnknownInlineElement { kind: kind.clone() });
                }
                let allowed = INTERLINK_ATTRS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ");
                for (k, v) in attrs {
                    let ok = INTERLINK_ATTRS.iter().any(|(n, t)| {
                        n == k
                            && matches!(
                                (t, v),
                                (PropType::String, PropValue::String(_))
                                    | (PropType::Bool, PropValue::Bool(_))
                            )
                    });
                    if !ok {
                        return Err(ModelError::InvalidInlineAttr {
                            kind: kind.clone(),
                            attr: k.clone(),
                            allowed,
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

fn code_text(block_type: &str, inline: &[Inline]) -> ModelResult<String> {
    let mut s = String::new();
    for i in inline {
        match i {
            Inline::Text(r) if r.styles.is_plain() && r.link.is_none() => s.push_str(&r.text),
            Inline::HardBreak => s.push('\n'),
            _ => {
                return Err(ModelError::InvalidContent {
                    block_type: block_type.to_string(),
                    problem:
                        "holds one plain text: no marks, links, inline math or inline elements"
                            .into(),
                });
            }
        }
    }
    Ok(s)
}

/// Resolves inline input (markdown or runs) for a block type with inline content, holding
/// the inline math `math` allows and the link targets `urls` allows.
pub(crate) fn resolve_inline(
    spec: &BlockSpec,
    content: Option<&NewContent>,
    mut math: MathInput,
    urls: &UrlInput,
) -> ModelResult<Prepared> {
    let name = spec.name;
    match (spec.content, content) {
        (ContentKind::Inline, None) => Ok(Prepared::Inline(vec![])),
        (ContentKind::Inline, Some(NewContent::Markdown(md))) => {
            let inline = parse_inline_with(md, math.clone())?;
            check_inline(name, &inline, &mut math, urls)?;
            Ok(Prepared::Inline(inline))
        }
        (ContentKind::Inline, Some(NewContent::Inline(i))) => {
            check_inline(name, i, &mut math, urls)?;
            Ok(Prepared::Inline(super::inline::normalize_inline(i.clone())))
        }
        (ContentKind::Code, None) => Ok(Prepared::Code(String::new())),
        (ContentKind::Code, Some(NewContent::Markdown(s))) => Ok(Prepared::Code(s.clone())),
        (ContentKind::Code, Some(NewContent::Inline(i))) => Ok(Prepared::Code(code_text(name, i)?)),
        (ContentKind::None, None) => Ok(Prepared::None),
        (ContentKind::None, Some(NewContent::Markdown(s))) if s.is_empty() => Ok(Prepared::None),
        (ContentKind::None, Some(NewContent::Inline(i))) if i.is_empty() => Ok(Prepared::None),
        (ContentKind::Table, Some(NewContent::Table(t))) => {
            if t.rows.is_empty() || t.rows.iter().any(|r| r.cells.is_empty()) {
                return Err(ModelError::InvalidContent {
                    block_type: name.into(),
                    problem: "needs at least one row, each with at least one cell".into(),
                });
            }
            let mut t = t.clone();
            for c in t.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
                check_props(
                    if c.header { TABLE_HEADER } else { TABLE_CELL },
                    CELL_PROPS,
                    &c.props,
                )?;
                check_inline(name, &c.content, &mut math, urls)?;
                c.props = full_props(CELL_PROPS, &c.props);
                c.content = super::inline::normalize_inline(std::mem::take(&mut c.content));
            }
            Ok(Prepared::Table(t))
        }
        (kind, _) => Err(ModelError::InvalidContent {
            block_type: name.into(),
            problem: match kind {
                ContentKind::Inline => "takes inline content (markdown text or runs)",
                ContentKind::Code => "takes plain text",
                ContentKind::None => "has no content (use props such as url/caption)",
                ContentKind::Table => "takes table content: {\"rows\":[{\"cells\":[...]}]}",
            }
            .into(),
        }),
    }
}

/// Validates a new block (and its children) against Docs' base schema, the nesting limit (as
/// a top-level block) and the link targets and media URLs new content may hold
/// ([`urls`](super::urls)), without touching any document.
pub fn validate_block(block: &NewBlock) -> ModelResult<()> {
    validate_block_in(block, Writing::new_content(EditorSchema::BASE))
}

/// [`validate_block`] written as `writing` says (to an instance of its schema; new, or read
/// from the document and put back as it was, its URLs then not checked).
pub fn validate_block_in(block: &NewBlock, writing: Writing) -> ModelResult<()> {
    prepare_blocks(std::slice::from_ref(block), 1, writing).map(|_| ())
}

/// Validates new blocks to be put at `depth` (1 for the top level), written as `writing` says:
/// first their nesting, iteratively, so that the validation's own recursion is bounded by
/// [`MAX_NESTING`]; then the schema.
///
/// [`MAX_NESTING`]: super::nesting::MAX_NESTING
pub(crate) fn prepare_blocks(
    blocks: &[NewBlock],
    depth: usize,
    writing: Writing,
) -> ModelResult<Vec<PreparedBlock>> {
    check_height(NewBlock::tallest(blocks), depth)?;
    let urls = writing.urls();
    blocks
        .iter()
        .map(|block| prepare(block, &urls, writing.schema))
        .collect()
}

fn prepare(block: &NewBlock, urls: &UrlInput, schema: EditorSchema) -> ModelResult<PreparedBlock> {
    let spec = writable_spec(&block.kind, schema)?;
    check_props(spec.name, spec.props, &block.props)?;
    urls.check_props(spec.name, &block.props)?;
    let math = MathInput::new_content(schema);
    let content = resolve_inline(spec, block.content.as_ref(), math, urls)?;
    let children = block
        .children
        .iter()
        .map(|child| prepare(child, urls, schema))
        .collect::<ModelResult<Vec<_>>>()?;
    Ok(PreparedBlock {
        spec,
        props: full_props(spec.props, &block.props),
        content,
        children,
    })
}

/// Checks a color value against BlockNote's palette.
pub fn is_color(s: &str) -> bool {
    COLORS.contains(&s)
}

/// Checks a text alignment value.
pub fn is_alignment(s: &str) -> bool {
    ALIGNMENTS.contains(&s)
}
