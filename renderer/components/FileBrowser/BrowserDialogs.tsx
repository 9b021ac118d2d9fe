import { useTranslation } from 'react-i18next';
import type { FileEntry } from '../../../shared/types';
import { FILE_NAME_REFUSED_CHARACTERS, checkFileName } from '../../../shared/validation';
import type { useFileActions } from '../../hooks/useFileActions';
import { useLinkActions } from '../../hooks/useLinkActions';
import { copyText } from '../../lib/clipboard';
import { childFolder } from '../../lib/places';
import { folderOfRow, type Row } from '../../lib/rows';
import type { LinkTarget } from '../../lib/shareLinks';
import { ConfirmDialog } from '../ConfirmDialog/ConfirmDialog';
import { MoveDialog, type TransferMode } from '../MoveDialog/MoveDialog';
import { NameDialog } from '../NameDialog/NameDialog';
import { ShareDialog } from '../ShareDialog/ShareDialog';
import { LazyTextEditor } from '../TextEditor/LazyTextEditor';
import { VersionsDialog } from '../VersionsDialog/VersionsDialog';
import { DeleteSummary } from './DeleteSummary';

export type DialogState =
  | { kind: 'delete'; rows: Row[] }
  | { kind: 'share'; link: LinkTarget; copied: boolean }
  | { kind: 'new-folder' }
  | { kind: 'transfer'; mode: TransferMode; rows: Row[] }
  | { kind: 'versions'; file: FileEntry }
  | { kind: 'edit'; file: FileEntry }
  | null;

interface BrowserDialogsProps {
  username: string;
  folder: string | null;
  dialog: DialogState;
  actions: ReturnType<typeof useFileActions>;
  onConfirmDelete: (rows: readonly Row[]) => Promise<void>;
  onClose: () => void;
}

/** The file browser's one open dialog, if any. */
export function BrowserDialogs({ username, folder, dialog, actions, onConfirmDelete, onClose }: BrowserDialogsProps) {
  const { t } = useTranslation();
  const links = useLinkActions(username);
  switch (dialog?.kind) {
    case 'delete':
      return (
        <ConfirmDialog
          title={
            dialog.rows.length === 1
              ? t('explorer:delete.titleOne', { name: dialog.rows[0].name })
              : t('explorer:delete.titleMany', { count: dialog.rows.length })
          }
          confirmLabel={t('explorer:delete.confirm')}
          onConfirm={() => onConfirmDelete(dialog.rows)}
          onClose={onClose}
        >
          <DeleteSummary rows={dialog.rows} />
        </ConfirmDialog>
      );
    case 'share':
      return (
        <ShareDialog
          username={username}
          link={dialog.link}
          copied={dialog.copied}
          onCopy={copyText}
          onUnshare={async () => {
            if (await links.unshare(dialog.link)) onClose();
          }}
          onClose={onClose}
        />
      );
    case 'new-folder':
      return (
        <NameDialog
          title={t('explorer:newFolder.title', { username: folder ?? username })}
          label={t('explorer:newFolder.label')}
          rule={t('errors:fileNameRule', { characters: FILE_NAME_REFUSED_CHARACTERS })}
          submitLabel={t('explorer:newFolder.submit')}
          validate={checkFileName}
          onSubmit={actions.createFolder}
          onClose={onClose}
        />
      );
    case 'transfer': {
      const { mode, rows } = dialog;
      return (
        <MoveDialog
          username={username}
          mode={mode}
          names={rows.map((row) => row.name)}
          folders={rows.flatMap((row) => (row.kind === 'folder' ? [row.folder.path ?? childFolder(folder, row.name)] : []))}
          from={rows.length > 0 ? folderOfRow(rows[0], folder) : folder}
          onPick={(to) => (mode === 'move' ? actions.move(rows, to) : actions.copy(rows, to))}
          onClose={onClose}
        />
      );
    }
    case 'versions':
      return <VersionsDialog username={username} folder={dialog.file.folder} file={dialog.file} onClose={onClose} />;
    case 'edit':
      return <LazyTextEditor username={username} file={dialog.file} onClose={onClose} />;
    default:
      return null;
  }
}
