// Renders the Marketplace icon (a 256×256 PNG: the manifest reference asks for at least 128 px and
// 256 px for Retina screens; the Marketplace and Open VSX refuse SVG icons) from
// the activity-bar glyph media/tasklane.svg, so the one drawing in git is the SVG and the PNG is
// build output (git-ignored). Run by `vscode:prepublish`, so every `vsce package` has a fresh one.
//   node scripts/renderIcon.mjs [--out <file.png>]     default: media/icon.png
import { Resvg } from '@resvg/resvg-js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The drawing's size in SVG units, the PNG's in pixels, and the background's colour: the same as package.json's galleryBanner.color. */
const SIZE = 128;
const PIXELS = 256;
const BACKGROUND = '#1f3a5f';
const GLYPH = '#ffffff';
const MARGIN = 14;

/** The glyph (drawn in `currentColor` for the activity bar) in white on a rounded square. */
export function iconSvg(glyph) {
  const inner = glyph.replaceAll('currentColor', GLYPH).replace(/<svg\b([^>]*)>/, (_, attributes) => {
    const kept = attributes.replace(/\s(width|height|x|y)="[^"]*"/g, '');
    const box = SIZE - 2 * MARGIN;
    return `<svg${kept} x="${MARGIN}" y="${MARGIN}" width="${box}" height="${box}">`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">`,
    `<rect width="${SIZE}" height="${SIZE}" rx="24" fill="${BACKGROUND}"/>`,
    inner,
    '</svg>',
  ].join('');
}

export function renderIcon(out = path.join(root, 'media', 'icon.png')) {
  const glyph = fs.readFileSync(path.join(root, 'media', 'tasklane.svg'), 'utf8');
  const png = new Resvg(iconSvg(glyph), { fitTo: { mode: 'width', value: PIXELS } }).render().asPng();
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, png);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const out = renderIcon(at > 0 ? path.resolve(process.argv[at + 1]) : undefined);
  process.stdout.write(`icon: ${path.relative(root, out)} (${SIZE}×${SIZE}) rendered from media/tasklane.svg\n`);
}
