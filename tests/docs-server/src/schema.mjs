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

export const docsSchema = withPageBreak(
  BlockNoteSchema.create({
    blockSpecs: {
      ...defaultBlockSpecs,
      callout: Callout(),
      pdf: Pdf(),
      uploadLoader: UploadLoader(),
    },
    inlineContentSpecs: {
      ...defaultInlineContentSpecs,
      interlinkingLinkInline: InterlinkingLinkInline,
    },
  }),
);
