/** The errno code of a failed system call (`ENOENT`, `EEXIST`…); undefined for any other error, or none. */
export const errnoCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null | undefined)?.code;
