import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useMemo } from 'react';

/**
 * Markdown of a model's answer, rendered so that no HTML from the model reaches the page: raw HTML in the
 * Markdown (a `<script>`, an `<img onerror>`) is shown as text, images as their alt text (nothing is loaded from
 * anywhere else), and DOMPurify then cleans what marked produced (no scripts, handlers or `javascript:` links), as a
 * second guard should marked ever pass something through.
 */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ text }) => escapeHtml(text),
  },
});

export function markdownToSafeHtml(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['img', 'style', 'form', 'input', 'button'], FORBID_ATTR: ['style'] });
}

// Links of an answer open in a new tab and give it no access back to this one.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
});

export function MarkdownText({ text, testId }: { text: string; testId?: string }) {
  const html = useMemo(() => markdownToSafeHtml(text), [text]);
  return <div className="markdown" data-testid={testId} dangerouslySetInnerHTML={{ __html: html }} />;
}
