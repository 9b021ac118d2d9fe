/** An upload's claim on its user and folder: deleting or renaming either in the meantime voids it. */
export interface UploadTicket {
  readonly username: string;
  readonly folder: string | null;
  void: boolean;
}

/** The uploads in flight, so deleting or renaming a user or folder can void theirs. */
export class UploadTickets {
  readonly #tickets = new Set<UploadTicket>();

  begin(username: string, folder: string | null): UploadTicket {
    const ticket: UploadTicket = { username, folder, void: false };
    this.#tickets.add(ticket);
    return ticket;
  }

  end(ticket: UploadTicket): void {
    this.#tickets.delete(ticket);
  }

  /** Voids the tickets of uploads into the user (every folder) or one folder and every folder below it. */
  voidAll(username: string, folder?: string): void {
    for (const ticket of this.#tickets) {
      if (ticket.username === username && (folder === undefined || isWithin(ticket.folder, folder))) ticket.void = true;
    }
  }
}

/** Whether `folder` is `top` or a folder inside it (by whole components: `ab` is not inside `a`). */
function isWithin(folder: string | null, top: string): boolean {
  return folder !== null && (folder === top || folder.startsWith(`${top}/`));
}
