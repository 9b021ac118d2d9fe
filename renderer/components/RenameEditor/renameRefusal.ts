import { createContext } from 'react';

/**
 * The daemon's refusal of a name typed in the inline editor (a name clash: 409 `file_exists`,
 * `folder_exists`, `name_case_conflict`): the editor opens again with that name and says why.
 */
export interface RenameRefusal {
  /** What was typed, given back to the editor. */
  name: string;
  /** Why, in the person's words and language (errorText.ts). */
  reason: string;
}

/** The refusal for the row being renamed, from the view that runs the rename (useInPlaceRename) to its editor. */
export const RenameRefusalContext = createContext<RenameRefusal | null>(null);
