/**
 * A tiny real video for tests that play one (no ffmpeg needed): a WebM written here, element by
 * element (EBML), around one VP8 key frame of 64×48 (a blue picture with a yellow box, encoded
 * once by Chromium's WebCodecs VideoEncoder). The frame is shown four times a second for one
 * second, each a key frame, and the Info element gives the duration, so a browser reads
 * `duration` 1 from the metadata alone.
 */

const VP8_KEY_FRAME = Buffer.from(
  'EAgAnQEqQAAwAAAHCIWFiJmEiAEkEBkwqF/AfwB6pSFHAfwB/SXjm+wP6wWoH+A/gDd/92A/wHs/xX5BcJaKqCamS5tiHUHxFgD++2h1AxJ3XWMehpJQCP//odUqvSHD3S2YlIro/WLsdD7q7RA2M0x0+ygpXFm9u+8/mCOZzdT/cL388pf+CeAAXmGG7b7KKzqGRq6ptgbJNsDv/fJf4Cg8AA==',
  'base64',
);
export const WEBM_WIDTH = 64;
export const WEBM_HEIGHT = 48;
/** Its length in seconds. */
export const WEBM_DURATION = 1;

/** An element's size as an EBML variable-length integer (the shortest that holds it). */
function size(n: number): Buffer {
  for (let length = 1; length <= 8; length += 1) {
    // All ones in the value bits is reserved ("unknown size").
    if (n < 2 ** (7 * length) - 1) {
      const bytes = Buffer.alloc(length);
      let rest = n;
      for (let i = length - 1; i >= 0; i -= 1) {
        bytes[i] = rest % 256;
        rest = Math.floor(rest / 256);
      }
      bytes[0] |= 0x80 >> (length - 1);
      return bytes;
    }
  }
  throw new Error(`an EBML size too large: ${n}`);
}

/** An element: its ID (written as it is, its length marker included), its size, its data. */
const element = (id: number, ...children: Buffer[]): Buffer => {
  const data = Buffer.concat(children);
  const hex = id.toString(16);
  return Buffer.concat([Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'), size(data.length), data]);
};
const uint = (id: number, value: number): Buffer => {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest % 256);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  return element(id, Buffer.from(bytes));
};
const text = (id: number, value: string): Buffer => element(id, Buffer.from(value, 'ascii'));
const float = (id: number, value: number): Buffer => {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleBE(value);
  return element(id, bytes);
};

/** A key frame of track 1 at `ms` from the cluster's start. */
function simpleBlock(ms: number): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0x81; // track 1
  head.writeInt16BE(ms, 1);
  head[3] = 0x80; // a key frame
  return element(0xa3, head, VP8_KEY_FRAME);
}

/** The video: one second of WEBM_WIDTH×WEBM_HEIGHT VP8 in WebM. */
export function tinyWebm(): Buffer {
  const header = element(
    0x1a45dfa3,
    uint(0x4286, 1), // EBMLVersion
    uint(0x42f7, 1), // EBMLReadVersion
    uint(0x42f2, 4), // EBMLMaxIDLength
    uint(0x42f3, 8), // EBMLMaxSizeLength
    text(0x4282, 'webm'), // DocType
    uint(0x4287, 2), // DocTypeVersion
    uint(0x4285, 2), // DocTypeReadVersion
  );
  const info = element(
    0x1549a966,
    uint(0x2ad7b1, 1_000_000), // TimecodeScale: milliseconds
    float(0x4489, WEBM_DURATION * 1000), // Duration
    text(0x4d80, 'nimbus tests'), // MuxingApp
    text(0x5741, 'nimbus tests'), // WritingApp
  );
  const tracks = element(
    0x1654ae6b,
    element(
      0xae, // TrackEntry
      uint(0xd7, 1), // TrackNumber
      uint(0x73c5, 1), // TrackUID
      uint(0x83, 1), // TrackType: video
      uint(0x9c, 0), // FlagLacing
      text(0x86, 'V_VP8'), // CodecID
      element(0xe0, uint(0xb0, WEBM_WIDTH), uint(0xba, WEBM_HEIGHT)), // Video: PixelWidth, PixelHeight
    ),
  );
  const cluster = element(0x1f43b675, uint(0xe7, 0), ...[0, 250, 500, 750].map(simpleBlock));
  return Buffer.concat([header, element(0x18538067, info, tracks, cluster)]);
}
