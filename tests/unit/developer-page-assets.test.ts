import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProceduresAnswer } from '../../src/http/developer-page/browser/api-types';
import { buildProcedureCatalogue, groupScopesByResource } from '../../src/http/developer-page/procedure-catalogue';
import { developerAssetsFromSource, SOURCE_DIR } from '../../src/http/developer-page/page-assets';
import { DEVELOPER_CSP } from '../../src/http/developer-page/page-route';
import { createProcedureRegistry } from '../../src/procedures';
import { KNOWN_SCOPES } from '../../src/auth/scopes';

// The page's files are checked by the compiler (browser/tsconfig.json) and driven in Chromium
// (integration/developer-page.browser.test.ts); this checks what the CSP relies on, and that the
// answer the page reads has the type the browser code expects.
describe('the developer page', () => {
  const assets = developerAssetsFromSource();

  it("reads /developer/api/procedures as the server builds it (a mismatch is a type error here)", () => {
    const answer: ProceduresAnswer = { routers: buildProcedureCatalogue(createProcedureRegistry()), resources: groupScopesByResource(KNOWN_SCOPES) };

    expect(answer.routers.flatMap((r) => r.procedures).map((p) => p.name)).toContain('leads.getAll');
    expect(answer.resources.find((r) => r.resource === 'leads')).toMatchObject({ read: 'leads.read' });
  });

  it('has no inline script, style or event handler, which its CSP refuses', () => {
    expect(DEVELOPER_CSP).toContain("script-src 'self'");
    expect(DEVELOPER_CSP).toContain("style-src 'self'");
    expect(DEVELOPER_CSP).not.toContain('unsafe-inline');
    const scripts = [...assets.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => [m[0].match(/src="([^"]+)"/)?.[1], m[1]])).toEqual([['/developer/assets/developer.js', '']]);
    expect(assets.html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i);
    expect([...assets.html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1])).toEqual(['/developer/assets/developer.css']);
  });

  it('serves its HTML and CSS files as they are', () => {
    expect(assets.html).toBe(readFileSync(join(SOURCE_DIR, 'developer.html'), 'utf8'));
    expect(assets.styles).toBe(readFileSync(join(SOURCE_DIR, 'developer.css'), 'utf8'));
  });

  it('bundles its script into one strict classic script that neither imports nor evaluates code', () => {
    expect(assets.script.startsWith('"use strict";\n(() => {')).toBe(true);
    expect(assets.script.trimEnd().endsWith('})();')).toBe(true);
    expect(assets.script).not.toMatch(/\bimport\s*[({'"]|\brequire\(|\beval\(|new Function\(/);
    // Each module's part is there: sign-in, the superjson decoding, the scope pickers, the live feed.
    for (const part of ['workspace-api.member-session', 'meta.values', 'missing scope: ', '/api/v1/stream-tokens']) expect(assets.script).toContain(part);
  });
});
