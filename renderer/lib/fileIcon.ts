import {
  File,
  FileArchive,
  FileAudio,
  FileCode,
  FileImage,
  FileSpreadsheet,
  FileText,
  FileVideo,
  Folder,
  type LucideIcon,
} from 'lucide-react';

export type FileKind = 'folder' | 'image' | 'video' | 'audio' | 'archive' | 'code' | 'sheet' | 'text' | 'other';

const BY_EXTENSION: Record<string, FileKind> = {
  zip: 'archive',
  gz: 'archive',
  tgz: 'archive',
  tar: 'archive',
  '7z': 'archive',
  rar: 'archive',
  xz: 'archive',
  bz2: 'archive',
  js: 'code',
  ts: 'code',
  tsx: 'code',
  jsx: 'code',
  json: 'code',
  html: 'code',
  css: 'code',
  py: 'code',
  rs: 'code',
  go: 'code',
  sh: 'code',
  c: 'code',
  cpp: 'code',
  h: 'code',
  java: 'code',
  yml: 'code',
  yaml: 'code',
  xml: 'code',
  csv: 'sheet',
  xls: 'sheet',
  xlsx: 'sheet',
  ods: 'sheet',
  tsv: 'sheet',
  txt: 'text',
  md: 'text',
  pdf: 'text',
  doc: 'text',
  docx: 'text',
  odt: 'text',
  rtf: 'text',
  log: 'text',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  svg: 'image',
  heic: 'image',
  avif: 'image',
  bmp: 'image',
  mp4: 'video',
  mov: 'video',
  mkv: 'video',
  webm: 'video',
  avi: 'video',
  mp3: 'audio',
  wav: 'audio',
  flac: 'audio',
  ogg: 'audio',
  m4a: 'audio',
};

/** What a file is, from a well-known extension first (`.ts` is code, not MPEG-TS) and its MIME type second. */
export function fileKind(name: string, mimeType = ''): FileKind {
  const dot = name.lastIndexOf('.');
  const known = dot > 0 ? BY_EXTENSION[name.slice(dot + 1).toLowerCase()] : undefined;
  if (known) return known;
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return mimeType.startsWith('text/') ? 'text' : 'other';
}

export const KIND_ICON: Record<FileKind, LucideIcon> = {
  folder: Folder,
  image: FileImage,
  video: FileVideo,
  audio: FileAudio,
  archive: FileArchive,
  code: FileCode,
  sheet: FileSpreadsheet,
  text: FileText,
  other: File,
};
