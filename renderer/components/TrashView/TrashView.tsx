export interface TrashViewProps {
  username: string;
}

/** A user's trash (docs/explorer.md, "Trash"): being built (issue 13). */
export function TrashView(props: TrashViewProps) {
  return <section aria-label={props.username} />;
}
