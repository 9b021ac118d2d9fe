#!/usr/bin/env node
// Draws the Nimbus icon (a white cloud on a blue rounded square) without any image
// library: shapes are evaluated per pixel with 4×4 supersampling and written as PNG.
// Writes build/icon.png (1024 px, what electron-builder turns into .icns/.ico/Linux
// sizes), build/icon.svg (the same shapes, for the web and docs) and main/icons.ts
// (small PNGs embedded as base64 for the tray and window, so the app needs no asset files).
//   node build/make-icons.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Geometry in a 0..1 square.
const BG = { inset: 0.06, radius: 0.2 };
const TOP = [0x4f, 0x9c, 0xf9];
const BOTTOM = [0x1d, 0x4e, 0xd8];
const CLOUD = {
  circles: [
    { cx: 0.33, cy: 0.57, r: 0.15 },
    { cx: 0.53, cy: 0.47, r: 0.2 },
    { cx: 0.7, cy: 0.59, r: 0.13 },
  ],
  base: { x0: 0.33, y0: 0.5, x1: 0.7, y1: 0.72, r: 0 },
};

function inRoundRect(x, y, { x0, y0, x1, y1, r }) {
  const dx = Math.max(x0 + r - x, 0, x - (x1 - r));
  const dy = Math.max(y0 + r - y, 0, y - (y1 - r));
  return x >= x0 && x <= x1 && y >= y0 && y <= y1 && dx * dx + dy * dy <= r * r;
}

function inCloud(x, y) {
  return CLOUD.circles.some(({ cx, cy, r }) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r) || inRoundRect(x, y, CLOUD.base);
}

function inBackground(x, y) {
  const { inset, radius } = BG;
  return inRoundRect(x, y, { x0: inset, y0: inset, x1: 1 - inset, y1: 1 - inset, r: radius });
}

/** RGBA pixels for one of the variants: 'app' (full icon) or 'template' (black cloud, for macOS menu bars). */
function render(size, variant) {
  const out = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          if (variant === 'template') {
            // Fill the square better at tray sizes: scale the cloud up around its centre.
            if (inCloud(0.51 + (x - 0.5) * 0.72, 0.56 + (y - 0.5) * 0.72)) a += 1;
            continue;
          }
          if (inCloud(x, y)) {
            r += 255;
            g += 255;
            b += 255;
            a += 1;
          } else if (inBackground(x, y)) {
            const t = y;
            r += TOP[0] + (BOTTOM[0] - TOP[0]) * t;
            g += TOP[1] + (BOTTOM[1] - TOP[1]) * t;
            b += TOP[2] + (BOTTOM[2] - TOP[2]) * t;
            a += 1;
          }
        }
      }
      const i = (py * size + px) * 4;
      const samples = n * n;
      out[i] = a ? Math.round(r / a) : 0;
      out[i + 1] = a ? Math.round(g / a) : 0;
      out[i + 2] = a ? Math.round(b / a) : 0;
      out[i + 3] = Math.round((255 * a) / samples);
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const hex = (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
const s = (v) => +(v * 1024).toFixed(2);
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="0 0 1024 1024">
  <title>Nimbus</title>
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${hex(TOP)}"/>
      <stop offset="1" stop-color="${hex(BOTTOM)}"/>
    </linearGradient>
  </defs>
  <rect x="${s(BG.inset)}" y="${s(BG.inset)}" width="${s(1 - 2 * BG.inset)}" height="${s(1 - 2 * BG.inset)}" rx="${s(BG.radius)}" fill="url(#sky)"/>
  <g fill="#ffffff">
${CLOUD.circles.map(({ cx, cy, r }) => `    <circle cx="${s(cx)}" cy="${s(cy)}" r="${s(r)}"/>`).join('\n')}
    <rect x="${s(CLOUD.base.x0)}" y="${s(CLOUD.base.y0)}" width="${s(CLOUD.base.x1 - CLOUD.base.x0)}" height="${s(CLOUD.base.y1 - CLOUD.base.y0)}" rx="${s(CLOUD.base.r)}"/>
  </g>
</svg>
`;

writeFileSync(join(root, 'build/icon.png'), png(1024, render(1024, 'app')));
writeFileSync(join(root, 'build/icon.svg'), svg);
const b64 = (size, variant) => png(size, render(size, variant)).toString('base64');
writeFileSync(
  join(root, 'main/icons.ts'),
  `// Generated by build/make-icons.mjs; do not edit. PNGs as base64, so the app ships no loose asset files.

/** The app icon at 256 px, for the window (Linux and Windows show it in the task bar). */
export const APP_ICON_PNG =\n  '${b64(256, 'app')}';
/** The tray icon on Linux and Windows (32 px; the OS scales it to the panel). */
export const TRAY_ICON_PNG =\n  '${b64(32, 'app')}';
/** macOS menu bar template images (black with alpha; macOS tints them): 16 px and 32 px for @2x. */
export const TRAY_TEMPLATE_PNG =\n  '${b64(16, 'template')}';
export const TRAY_TEMPLATE_2X_PNG =\n  '${b64(32, 'template')}';
`,
);
console.log('Wrote build/icon.png, build/icon.svg and main/icons.ts');
