/**
 * A planned folder upload, answered, sent: the missing folders made level by level (parents
 * first, one call each), then every file queued into its folder. A folder the daemon will not
 * make fails the files below it in the upload panel, with its message; the rest goes on.
 */
import { ApiError, errorMessage, type NimbusClient } from '../api/client';
import type { BatchPlan, ConflictAnswers, ListFiles } from './folderBatch';
import { jobsOf } from './folderBatch';
import type { UploadQueue, UploadSource } from './UploadQueue';

/** The names of the files directly in `folder`, or null when it does not exist (404). */
export function listFilesWith(client: NimbusClient, username: string): ListFiles {
  return async (folder) => {
    try {
      const listed =
        folder === null ? await client.call('files.list', { username }) : await client.call('folders.files', { username, folder });
      return listed.files.map((file) => file.name);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && error.code === 'folder_not_found') return null;
      throw error;
    }
  };
}

/** Makes the plan's folders, parents first; answers the ones that could not be made, with why. */
async function createFolders(client: NimbusClient, username: string, create: readonly string[]): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const folder of create) {
    const parent = folder.slice(0, Math.max(0, folder.lastIndexOf('/')));
    const above = failed.get(parent);
    if (above !== undefined) {
      failed.set(folder, above);
      continue;
    }
    try {
      await client.call('folders.create', { username, folder });
    } catch (error) {
      // Made meanwhile (by another window, another program): merged into, as one that existed.
      if (error instanceof ApiError && error.code === 'folder_exists') continue;
      failed.set(folder, errorMessage(error));
    }
  }
  return failed;
}

/**
 * Sends `plan` with the answers to its conflicts: folders first, then the files into the queue (the
 * refused ones failed at once, so they show with their reason). Answers the folders that could
 * not be made, with the daemon's message.
 */
export async function sendBatch(
  client: NimbusClient,
  queue: UploadQueue,
  username: string,
  destination: string | null,
  plan: BatchPlan,
  answers: ConflictAnswers,
): Promise<Map<string, string>> {
  const failed = await createFolders(client, username, plan.create);
  const sources: UploadSource[] = [
    ...jobsOf(plan, answers).map((job) => ({
      name: job.name,
      body: job.file,
      folder: job.folder,
      overwrite: job.overwrite,
      besides: job.besides ?? undefined,
      refused: job.folder === null ? undefined : failed.get(job.folder),
    })),
    ...plan.refused.map((entry) => ({
      name: entry.name,
      body: entry.file ?? new Blob([]),
      folder: entry.folder,
      refused: entry.message,
      badName: true,
    })),
  ];
  if (sources.length > 0) queue.add(sources, username, destination);
  return failed;
}
