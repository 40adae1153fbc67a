// BlockNote schema used by the test server: BlockNote's defaults plus the custom
// blocks and inline content of La Suite Docs' editor (same type names, prop names
// and defaults as Docs' frontend), so documents round-trip without losing nodes.
import {
  BlockNoteSchema,
  createBlockSpec,
  createInlineContentSpec,
  defaultBlockSpecs,
  defaultInlineContentSpecs,
  defaultProps,
  parsePreCodeContent,
  withPageBreak,
} from '@blocknote/core';

const el = (tag, attrs = {}) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
};

const Callout = createBlockSpec(
  {
    type: 'callout',
    propSchema: {
      textAlignment: defaultProps.textAlignment,
      backgroundColor: { default: 'default' },
      emoji: { default: '💡' },
    },
    content: 'inline',
  },
  {
    render: (block) => {
      const dom = el('div', { 'data-content-type': 'callout', 'data-emoji': block.props.emoji });
      const contentDOM = el('p');
      dom.appendChild(contentDOM);
      return { dom, contentDOM };
    },
    toExternalHTML: (block) => {
      const dom = el('aside', { role: 'note', 'data-emoji': block.props.emoji });
      const contentDOM = el('p');
      dom.appendChild(contentDOM);
      return { dom, contentDOM };
    },
  },
);

const Pdf = createBlockSpec(
  {
    type: 'pdf',
    propSchema: {
      backgroundColor: { default: 'default' },
      caption: { default: '' },
      name: { default: '' },
      previewWidth: { default: undefined, type: 'number' },
      showPreview: { default: true },
      textAlignment: { default: 'left' },
      url: { default: '' },
    },
    content: 'none',
  },
  {
    render: (block) => {
      const dom = el('div', { 'data-content-type': 'pdf' });
      if (block.props.url) {
        const a = el('a', { href: block.props.url });
        a.textContent = block.props.name || block.props.url;
        dom.appendChild(a);
      }
      return { dom };
    },
    toExternalHTML: (block) => {
      const dom = el('div', { 'data-content-type': 'pdf' });
      if (block.props.url) {
        const a = el('a', { href: block.props.url });
        a.textContent = block.props.name || block.props.url;
        dom.appendChild(a);
      }
      return { dom };
    },
  },
);

const UploadLoader = createBlockSpec(
  {
    type: 'uploadLoader',
    propSchema: {
      information: { default: '' },
      type: { default: 'loading', values: ['loading', 'warning'] },
      blockUploadName: { default: '' },
      blockUploadShowPreview: { default: true },
      blockUploadType: { default: '' },
      blockUploadUrl: { default: '' },
    },
    content: 'none',
  },
  {
    render: () => ({ dom: el('div', { 'data-content-type': 'uploadLoader' }) }),
    toExternalHTML: () => ({ dom: el('div', { 'data-content-type': 'uploadLoader' }) }),
  },
);

const InterlinkingLinkInline = createInlineContentSpec(
  {
    type: 'interlinkingLinkInline',
    propSchema: {
      docId: { default: '' },
      disabled: { default: false, values: [true, false] },
      trigger: { default: '/', values: ['/', '@'] },
      title: { default: '' },
    },
    content: 'none',
  },
  {
    render: (ic) => {
      const { disabled, docId, title } = ic.props;
      if (disabled || !docId) return { dom: el('span') };
      const dom = el('a', {
        'data-inline-content-type': 'interlinkingLinkInline',
        href: `/docs/${encodeURIComponent(docId)}/`,
        'data-doc-id': docId,
      });
      dom.textContent = title || docId;
      return { dom };
    },
    toExternalHTML: (ic) => {
      const { disabled, docId, title } = ic.props;
      if (disabled || !docId) return { dom: el('span') };
      const dom = el('a', { href: `/docs/${encodeURIComponent(docId)}/`, 'data-doc-id': docId });
      dom.textContent = title || docId;
      return { dom };
    },
  },
);

// Docs' user mentions (its branch, not released yet): `userMentionInline {userId, fullName}`,
// shown as `@fullName`; one without a user shows nothing (as Docs' exporters do).
const UserMentionInline = createInlineContentSpec(
  {
    type: 'userMentionInline',
    propSchema: {
      userId: { default: '' },
      fullName: { default: '' },
    },
    content: 'none',
  },
  {
    render: (ic) => {
      const dom = el('span', {
        'data-inline-content-type': 'userMentionInline',
        'data-user-id': ic.props.userId,
      });
      dom.textContent = ic.props.userId ? `@${ic.props.fullName}` : '';
      return { dom };
    },
  },
);

// Docs 5.6's math and diagram blocks come from `@blocknote/math-block` and
// `@blocknote/diagram-block`, which the npm registry reachable here does not have. These
// specs store exactly what theirs do — the same type names (`mathBlock`, `diagram`, inline
// `math`), no props, `content: 'plain'` (one unmarked text, `\n` for line breaks) — and parse
// the same HTML: `<math display="block|inline">` (LaTeX from its TeX annotation, else its
// text) and, before the code block, `<pre><code>` whose language is `mermaid`. Their
// rendering (KaTeX, Mermaid) is left out: nothing here displays a document.
// Sources: ARCHITECTURE.md, "Math and diagram blocks".
const latexOf = (el) => {
  const tex = [...el.getElementsByTagName('annotation')].find(
    (a) => a.getAttribute('encoding') === 'application/x-tex',
  );
  return (tex ? tex.textContent : el.textContent).trim();
};

const mathContent = ({ el, schema }) => {
  const latex = latexOf(el);
  return latex ? schema.text(latex) : undefined;
};

const MathBlock = createBlockSpec(
  { type: 'mathBlock', propSchema: {}, content: 'plain' },
  {
    meta: { code: true, defining: true, isolating: false },
    parse: (el) =>
      el.nodeName.toLowerCase() === 'math' && el.getAttribute('display') === 'block' ? {} : undefined,
    parseContent: (opts) => {
      const text = mathContent(opts);
      return text && opts.schema.nodes.mathBlock.create(null, text).content;
    },
    render: () => {
      const dom = el('div', { 'data-content-type': 'mathBlock' });
      const contentDOM = el('code');
      dom.appendChild(contentDOM);
      return { dom, contentDOM };
    },
    toExternalHTML: () => {
      const dom = el('math', { xmlns: 'http://www.w3.org/1998/Math/MathML', display: 'block' });
      return { dom, contentDOM: dom };
    },
  },
);

const mermaidCode = (el) => {
  if (el.tagName !== 'PRE' || el.childElementCount !== 1) return undefined;
  const code = el.firstElementChild;
  if (code.tagName !== 'CODE') return undefined;
  const language =
    code.getAttribute('data-language') ||
    code.className
      .split(' ')
      .find((name) => name.startsWith('language-'))
      ?.replace('language-', '');
  return language === 'mermaid' ? {} : undefined;
};

const Diagram = createBlockSpec(
  { type: 'diagram', propSchema: {}, content: 'plain' },
  {
    meta: { code: true, defining: true, isolating: false },
    parse: mermaidCode,
    parseContent: (opts) => parsePreCodeContent(opts, 'diagram'),
    runsBefore: ['codeBlock'],
    render: () => {
      const dom = el('pre', { 'data-content-type': 'diagram' });
      const contentDOM = el('code');
      dom.appendChild(contentDOM);
      return { dom, contentDOM };
    },
    toExternalHTML: () => {
      const dom = el('pre');
      const contentDOM = el('code', { class: 'language-mermaid', 'data-language': 'mermaid' });
      dom.appendChild(contentDOM);
      return { dom, contentDOM };
    },
  },
);

const InlineMath = createInlineContentSpec(
  { type: 'math', propSchema: {}, content: 'plain' },
  {
    meta: { code: true },
    parse: (el) =>
      el.nodeName.toLowerCase() === 'math' && el.getAttribute('display') === 'inline' ? {} : undefined,
    parseContent: (opts) => {
      const text = mathContent(opts);
      return text && opts.schema.nodes.paragraph.create(null, text).content;
    },
    render: () => {
      const dom = el('span', { 'data-inline-content-type': 'math' });
      return { dom, contentDOM: dom };
    },
    toExternalHTML: () => {
      const dom = el('math', { xmlns: 'http://www.w3.org/1998/Math/MathML', display: 'inline' });
      return { dom, contentDOM: dom };
    },
  },
);

export const docsSchema = withPageBreak(
  BlockNoteSchema.create({
    blockSpecs: {
      ...defaultBlockSpecs,
      callout: Callout(),
      pdf: Pdf(),
      uploadLoader: UploadLoader(),
      mathBlock: MathBlock(),
      diagram: Diagram(),
    },
    inlineContentSpecs: {
      ...defaultInlineContentSpecs,
      interlinkingLinkInline: InterlinkingLinkInline,
      userMentionInline: UserMentionInline,
      math: InlineMath,
    },
  }),
);
