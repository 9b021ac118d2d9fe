import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CloudUpload } from 'lucide-react';
import { entriesOfDrop, holdsDirectory } from '../../upload/droppedTree';
import './DropZone.css';

interface DropZoneProps {
  /** Where dropped files go, shown while dragging ("ana › Photos"). */
  destination: string;
  onFiles: (files: File[]) => void;
  /** A drop that holds a folder: its entries, read as a tree by the receiver. */
  onEntries: (entries: FileSystemEntry[]) => void;
  /** Said over the area while dragging, instead of where files go, when a drop will upload nothing (a read-only key). */
  refusal?: string;
  children: ReactNode;
}

const carriesFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');

/** Accepts files and folders dragged from the desktop anywhere over its area. */
export function DropZone({ destination, onFiles, onEntries, refusal, children }: DropZoneProps) {
  const { t } = useTranslation();
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  return (
    <div
      className="dropzone"
      onDragEnter={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        depth.current += 1;
        setOver(true);
      }}
      onDragOver={(event) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        depth.current = 0;
        setOver(false);
        // The entries must be taken now: the drop's items are gone once the event returns.
        const entries = event.dataTransfer ? entriesOfDrop(event.dataTransfer) : [];
        if (holdsDirectory(entries)) return onEntries(entries);
        const files = Array.from(event.dataTransfer?.files ?? []);
        if (files.length > 0) onFiles(files);
      }}
    >
      {children}
      {over ? (
        <div className="dropzone__overlay" aria-hidden="true">
          <div className="dropzone__card">
            <CloudUpload size={36} />
            <div className="dropzone__title">{refusal ?? t('explorer:dropzone.title')}</div>
            {refusal ? null : <div className="dropzone__dest">{t('explorer:dropzone.destination', { destination })}</div>}
          </div>
        </div>
      ) : null}
    </div>
  );
}
