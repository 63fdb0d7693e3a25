import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { createLogger } from '../../src/logger';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

function memoryStream(isTTY: boolean) {
  let written = '';
  return { isTTY, write: (line: string) => void (written += line), text: () => written };
}

describe('createLogger in development', () => {
  it('writes readable lines without colour codes to a destination that is not a terminal', () => {
    const out = memoryStream(false);

    createLogger('info', { nodeEnv: 'development', destination: out }).info({ orgId: 'org_1' }, 'workspace created');

    expect(out.text()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: workspace created\n {4}orgId: "org_1"\n$/);
    expect(out.text()).not.toMatch(ANSI);
  });

  it('colours them for a terminal (outside development a terminal gets JSON, as anything else)', () => {
    const out = memoryStream(true);
    const production = memoryStream(true);

    createLogger('info', { nodeEnv: 'development', destination: out }).warn('slow query');
    createLogger('info', { nodeEnv: 'production', destination: production }).warn('slow query');

    expect(out.text()).toMatch(ANSI);
    expect(out.text()).toContain('slow query');
    expect(JSON.parse(production.text())).toMatchObject({ level: 40, msg: 'slow query' });
  });

  it('writes plain lines when stdout is a pipe (a file, a collector): no colour codes', async () => {
    const script = "require('./src/logger').createLogger('info', { nodeEnv: 'development' }).info('piped')";
    const stdout = await new Promise<string>((done, fail) => {
      execFile('npx', ['tsx', '-e', script], { cwd: resolve(__dirname, '../..'), env: { ...process.env, FORCE_COLOR: '1' }, timeout: 60_000 }, (err, out) => (err ? fail(err) : done(out)));
    });

    expect(stdout).toMatch(/INFO: piped\n$/);
    expect(stdout).not.toMatch(ANSI);
  }, 90_000);
});
