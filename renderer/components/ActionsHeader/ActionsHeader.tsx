/** A column header there only for screen readers, over a column of row buttons. */
export function ActionsHeader({ label }: { label: string }) {
  return (
    <th scope="col">
      <span className="visually-hidden">{label}</span>
    </th>
  );
}
