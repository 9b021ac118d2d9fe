/**
 * DaneeCloud's Discord bot (daneedev/DaneeCloudBot, vendored unchanged in
 * test/fixtures/daneecloud-bot) against a real Nimbus daemon, with Discord replaced by a
 * recorder (test/helpers/bot-harness.ts). With a key of dialect `daneecloud` every command
 * replies, and no reply holds an exception, `undefined`, `NaN` or `[object Object]`. With a
 * `nimbus` key the same client gets Nimbus's records, on which the bot fails: the dialect is
 * what makes Nimbus a drop-in for it.
 *
 * Not covered, because the bot fails there against DaneeCloud itself: its error paths that
 * print the client's `data` as a title (/delfolder, /folderfiles, /renfile, /renfolderfile,
 * /delfolderfile on a 404; DaneeCloud's error bodies were objects, `{error}`, too), /folders
 * on a 404 (it reads an undefined variable `files`), list commands on an empty list (an
 * empty embed description, which discord.js refuses) and /edituser's success (no reply: the
 * client reports 201 as 200). Nor /delrole of a built-in role or one in use: Nimbus refuses
 * with 409, which the bot has a message for, but the client's deleteRole passes no 409 on and
 * the bot reads `.code` of undefined (DaneeCloud deleted such a role).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_DIR, loadBot, textsOf, unloadBot, type Bot, type Outcome } from '../helpers/bot-harness.js';
import { startTestDaemon, upload, type TestDaemon } from '../helpers/daemon.js';

let t: TestDaemon;
let bot: Bot;
let nimbusBot: Bot;

beforeAll(async () => {
  t = await startTestDaemon();
  const danee = await t.api('POST', '/api/keys/create', { label: 'discord-bot', scope: 'admin', dialect: 'daneecloud' });
  const nimbus = await t.api('POST', '/api/keys/create', { label: 'nimbus-client', scope: 'admin' });
  bot = await loadBot(t.url, danee.body.key);
  nimbusBot = await loadBot(t.url, nimbus.body.key);
});
afterAll(async () => {
  unloadBot();
  await t.close();
});

/** Every reply of a command that worked: at least one, and nothing Discord users should see. */
function expectClean(outcome: Outcome): string[] {
  expect(outcome.errors).toEqual([]);
  expect(outcome.replies.length + outcome.modals.length).toBeGreaterThan(0);
  const texts = textsOf([...outcome.replies, ...outcome.modals]);
  for (const text of texts) expect(text).not.toMatch(/undefined|NaN|\[object Object\]/);
  return texts;
}

/** The embeds of the one reply, as plain data. */
function embed(outcome: Outcome): { title?: string; description?: string; fields?: { name: string; value: string }[] } {
  expect(outcome.replies).toHaveLength(1);
  const reply = outcome.replies[0] as { embeds: { data: object }[] };
  return reply.embeds[0].data;
}

const field = (e: ReturnType<typeof embed>, name: string) => e.fields?.find((f) => f.name === name)?.value;

describe('DaneeCloud’s bot, unchanged, against Nimbus with a daneecloud key', () => {
  it('is the published bot: every command module loads, none is missing', () => {
    const files = readdirSync(path.join(BOT_DIR, 'commands'));
    expect(files).toHaveLength(25);
    expect(bot.commands.sort()).toEqual(
      [
        'addrole',
        'clear',
        'createfolder',
        'delfile',
        'delfolder',
        'delfolderfile',
        'delrole',
        'deluser',
        'disableshare',
        'editrole',
        'edituser',
        'files',
        'folderfiles',
        'folders',
        'help',
        'info',
        'register',
        'renfile',
        'renfolderfile',
        'roles',
        'share',
        'user',
        'userrole',
        'users',
        'verifyuser',
      ].sort(),
    );
  });

  it('/help, /clear', async () => {
    expect(embed(await bot.run('help')).title).toBe('Help');
    expect(embed(await bot.run('clear', { amount: 5 })).title).toBe('5 messages has been deleted');
  });

  it('/register shows the modal and its answers create the user', async () => {
    expectClean(await bot.run('register'));
    const done = await bot.submitRegistration({ usernameInput: 'ana', emailInput: 'ana@example.com', passwordInput: 'password1' });
    expectClean(done);
    expect(embed(done).title).toBe('Your account has been registered');
    expect((await t.api('GET', '/api/user', { username: 'ana' })).status).toBe(200);
  });

  it('/user shows verified, used storage in MB, role; /users lists', async () => {
    await upload(t, 'ana', 'big.bin', Buffer.alloc(1536 * 1024));
    const user = await bot.run('user', { username: 'ana' });
    expectClean(user);
    const e = embed(user);
    expect(e.title).toBe('ana');
    expect(field(e, 'Email')).toBe('ana@example.com');
    expect(field(e, 'Is verified?')).toBe('No');
    expect(field(e, 'Used storage')).toBe('1.5 MB');
    expect(field(e, 'Role')).toBe('user');
    expect(field(e, 'IP Address')).toBe('-');
    const users = await bot.run('users');
    expectClean(users);
    expect(embed(users).description).toBe('\n**ana** | ana@example.com ');
    expect(embed(await bot.run('verifyuser', { username: 'ana' })).title).toBe('Verification email to ana has been send');
  });

  it('roles: /addrole, /roles, /editrole, /userrole, /delrole', async () => {
    expectClean(await bot.run('addrole', { name: 'pro', maxstorage: 1024, badgeurl: 'https://example.com/pro.png' }));
    const roles = await bot.run('roles');
    expectClean(roles);
    expect(embed(roles).description).toContain('**pro** | 1024 MB');
    const edit = await bot.run('editrole', { name: 'pro', newname: 'pro2', maxstorage: 2048, badgeurl: 'https://example.com/p.png' });
    expect(field(embed(edit), 'New maxStorage')).toBe('2048 MB');
    expectClean(edit);
    const role = await bot.run('userrole', { username: 'ana', rolename: 'pro2' });
    expectClean(role);
    expect(embed(role).title).toBe("ana's role has been changed to pro2");
    expect(field(embed(await bot.run('user', { username: 'ana' })), 'Role')).toBe('pro2');
  });

  it('files at the root: /files, /renfile, /share, /disableshare, /delfile', async () => {
    await upload(t, 'ana', 'a.txt', 'hello');
    const files = await bot.run('files', { username: 'ana' });
    expectClean(files);
    expect(embed(files).description).toBe('\n**a.txt**\n**big.bin**');
    expectClean(await bot.run('renfile', { username: 'ana', filename: 'a.txt', newfilename: 'b.txt' }));
    const share = await bot.run('share', { username: 'ana', filename: 'b.txt' });
    expectClean(share);
    expect(embed(share).title).toBe('File b.txt has been shared!');
    expect((await t.api('GET', '/api/files', { username: 'ana' })).body.files[0]).toMatchObject({ name: 'b.txt', shared: true });
    expect(embed(await bot.run('share', { username: 'ana', filename: 'b.txt' })).title).toBe('File is already shared');
    expectClean(await bot.run('disableshare', { username: 'ana', filename: 'b.txt' }));
    expectClean(await bot.run('delfile', { username: 'ana', filename: 'b.txt' }));
    expect(embed(await bot.run('files', { username: 'ana' })).description).toBe('\n**big.bin**');
  });

  it('folders: /createfolder, /folders, /folderfiles, /renfolderfile, /delfolderfile, /delfolder', async () => {
    expectClean(await bot.run('createfolder', { username: 'ana', name: 'docs' }));
    expect(embed(await bot.run('createfolder', { username: 'ana', name: 'docs' })).title).toBe('Folder already exist');
    const folders = await bot.run('folders', { username: 'ana' });
    expectClean(folders);
    expect(embed(folders).description).toBe('\n**/docs**');
    await upload(t, 'ana', 'x.txt', 'x', { folder: 'docs' });
    await upload(t, 'ana', 'keep.txt', 'k', { folder: 'docs' });
    const inFolder = await bot.run('folderfiles', { username: 'ana', folder: 'docs' });
    expectClean(inFolder);
    expect(embed(inFolder).description).toBe('\n**keep.txt**\n**x.txt**');
    expectClean(await bot.run('renfolderfile', { username: 'ana', foldername: 'docs', filename: 'x.txt', newfilename: 'y.txt' }));
    const del = await bot.run('delfolderfile', { username: 'ana', foldername: 'docs', filename: 'y.txt' });
    expectClean(del);
    expect(embed(del).title).toBe('File y.txt in /docs has been deleted');
    expect(embed(await bot.run('folderfiles', { username: 'ana', folder: 'docs' })).description).toBe('\n**keep.txt**');
    expectClean(await bot.run('delfolder', { username: 'ana', name: 'docs' }));
  });

  it('/info shows the dash: CPU, RAM, uptime, version, developer', async () => {
    const info = await bot.run('info');
    expectClean(info);
    const e = embed(info);
    expect(field(e, 'Dash CPU Usage')).toMatch(/^\d+(\.\d+)? %$/);
    expect(field(e, 'Dash RAM Usage')).toMatch(/^\d+ MB$/);
    expect(field(e, 'Dash Uptime')).toMatch(/^\d+ (ms|seconds?|minutes?|hours?|days?)$/);
    expect(field(e, 'Dash Current version')).toMatch(/^v\d+\.\d+\.\d+/);
    expect(field(e, 'Developer')).toBe('Nimbus');
    expect(field(e, 'Bot Current version')).toBe('v1.3.1');
  });

  it('answers by status where it reads only the status: unknown user, role, file', async () => {
    for (const [name, args, title] of [
      ['user', { username: 'nobody' }, 'User not found'],
      ['deluser', { username: 'nobody' }, 'User not found'],
      ['verifyuser', { username: 'nobody' }, 'User not found'],
      ['edituser', { username: 'nobody', newusername: 'x', newemail: 'x@example.com', newpassword: 'password2' }, 'User not found'],
      ['files', { username: 'nobody' }, 'User not found'],
      ['createfolder', { username: 'nobody', name: 'docs' }, 'User not found'],
      ['delrole', { name: 'nope' }, 'Role not found'],
      ['editrole', { name: 'nope', newname: 'x', maxstorage: 1, badgeurl: 'https://example.com/x.png' }, 'Role not found'],
      ['addrole', { name: 'pro2', maxstorage: 1, badgeurl: 'https://example.com/x.png' }, 'Role already exist'],
    ] as const) {
      const outcome = await bot.run(name, args);
      expectClean(outcome);
      expect(embed(outcome).title, `/${name}`).toBe(title);
    }
  });

  it('/edituser (which never replies on success, as against DaneeCloud), /deluser, and the role goes', async () => {
    // The client turns DaneeCloud's 201 into code 200 and the bot waits for 201: no reply, no error.
    const edit = await bot.run(
      'edituser',
      { username: 'ana', newusername: 'ana2', newemail: 'ana2@example.com', newpassword: 'password2' },
      { waitMs: 200 },
    );
    expect(edit).toEqual({ replies: [], modals: [], errors: [] });
    expect(field(embed(await bot.run('user', { username: 'ana2' })), 'Email')).toBe('ana2@example.com');
    expectClean(await bot.run('deluser', { username: 'ana2' }));
    expectClean(await bot.run('delrole', { name: 'pro2' }));
    expect((await t.api('GET', '/api/role/all')).body.map((r: { name: string }) => r.name).sort()).toEqual(['admin', 'user']);
  });

  it('ran every command of the bot', () => {
    expect([...bot.ran].sort()).toEqual([...bot.commands].sort());
  });
});

describe('the same bot with a nimbus key', () => {
  it('gets Nimbus’s records, unchanged', async () => {
    await t.api('POST', '/api/user/create', { username: 'bo', email: 'bo@example.com', password: 'password1' });
    await upload(t, 'bo', 'a.txt', 'hello');
    await t.api('POST', '/api/folders/create', { username: 'bo', folder: 'docs' });
    await upload(t, 'bo', 'x.txt', 'x', { folder: 'docs' });
    const user = await nimbusBot.cloud.getUser('bo');
    expect(Object.keys(user.data as object).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'role', 'usage', 'username']);
    expect((await nimbusBot.cloud.getFiles('bo')).data).toEqual({
      files: [expect.objectContaining({ name: 'a.txt', size: 5, folder: null })],
    });
    expect((await nimbusBot.cloud.getFolders('bo')).data).toEqual({ folders: [expect.objectContaining({ name: 'docs', fileCount: 1 })] });
    expect((await nimbusBot.cloud.getFilesFromFolder('bo', 'docs')).data).toEqual({
      files: [expect.objectContaining({ name: 'x.txt', folder: 'docs' })],
    });
    expect((await nimbusBot.cloud.getDashInfo()).data).toMatchObject({ uptime: expect.any(Number), users: expect.any(Number) });
  });

  it('on which the bot fails: the reason for the daneecloud dialect', async () => {
    expect((await nimbusBot.run('user', { username: 'bo' })).errors).toEqual([expect.stringMatching(/TypeError: .*toString/)]);
    expect(embed(await nimbusBot.run('files', { username: 'bo' })).description).toBe('\n**[object Object]**');
    expect(embed(await nimbusBot.run('folders', { username: 'bo' })).description).toBe('\n**/[object Object]**');
    expect((await nimbusBot.run('info')).errors).toEqual([expect.stringMatching(/field "Dash CPU Usage" value must be a string/)]);
    // The daneecloud key sees the same user as DaneeCloud did.
    expect(field(embed(await bot.run('user', { username: 'bo' })), 'Used storage')).toBe('0 MB');
  });
});
