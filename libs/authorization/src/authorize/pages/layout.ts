import { createHash } from 'node:crypto';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (char) => `&#${char.charCodeAt(0)};`);
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:28rem;margin:4rem auto;background:#fff;border-radius:8px;padding:2rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;margin:.8rem 0 .3rem;font-weight:600}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #b8bfcc;border-radius:4px;font-size:1rem}
button{margin-top:1.2rem;padding:.6rem 1.2rem;border-radius:4px;border:1px solid #2c5cc5;background:#2c5cc5;color:#fff;font-size:1rem;cursor:pointer}
button.secondary{background:#fff;color:#2c5cc5;margin-left:.5rem}
.error{background:#fde8e8;border:1px solid #f5b5b5;padding:.6rem;border-radius:4px}
.warning{background:#fff6db;border:1px solid #f0d27a;padding:.6rem;border-radius:4px}
.hint{color:#5b6473;font-size:.9rem}
a.button{display:inline-block;margin-top:1.2rem;padding:.6rem 1.2rem;border-radius:4px;border:1px solid #2c5cc5;color:#2c5cc5;text-decoration:none}
dl{margin:0}dt{font-weight:600;margin-top:.6rem}dd{margin:0;word-break:break-all}
ul.scopes{list-style:none;padding:0}ul.scopes li{margin:.3rem 0}
code{background:#f0f2f5;padding:0 .2rem;border-radius:3px}
`.trim();

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Content Security Policy of every page: nothing loads but the one inline stylesheet (by hash), no script, no
 * framing (clickjacking on login and consent; RFC 9700 4.16), no base-URI tricks.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.16
 */
export const PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; frame-ancestors 'none'`;

/** A complete page around `body` (already escaped HTML). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
