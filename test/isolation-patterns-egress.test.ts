import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import jsonata from 'jsonata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedAddress } from '../src/egress/address-policy';
import { expressionSyntaxProblem } from '../src/modules/workflow/expressions';
import { Re2RegexEngine } from '../src/engine/re2';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * User-supplied regular expressions are RE2 (linear time; refused when stored if RE2 cannot compile
 * them), and the egress guard refuses every special-purpose IPv4 and IPv6 range, the IPv4-compatible
 * `::/96` among them, through the real application and PostgreSQL.
 */

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let organization: { id: string; slug: string };

beforeAll(async () => {
  server = await startServer();
  member = await newCaller('Patterns');
  organization = await createOrganization(server, { name: unique('PatternsOrg') }, member.key);
});
afterAll(() => server.close());

const createTemplate = (body: Record<string, unknown>, status = 201) =>
  rest(member, 'POST', '/api/project-templates', status, { organizationId: organization.id, name: unique('Template'), ...body });

async function createProject(body: Record<string, unknown>, status: number) {
  const answer = await server.request('POST', '/api/projects', {
    body: { organizationId: organization.id, name: unique('Project'), ...body },
    key: member.key,
  });
  expect(answer.status, answer.text.slice(0, 500)).toBe(status);
  return answer.body;
}

const withValues = (projectTemplateRef: string, dataProperties: Record<string, unknown>) => ({ projectTemplateRef, options: { dataProperties } });

const CREATE_TEMPLATE = `mutation($input: ProjectTemplateCreateRequest!) { createProjectTemplate(input: $input) { id options } }`;
const UPDATE_TEMPLATE = `mutation($id: ID!, $input: ProjectTemplateUpdateRequest!) { updateProjectTemplate(id: $id, input: $input) { id options } }`;
const CREATE_PROJECT = `mutation($input: ProjectCreateRequest!) { createProject(input: $input) { id options } }`;

describe('template option patterns are RE2', () => {
  it('matches a catastrophic-backtracking pattern in linear time: refused or accepted correctly, whatever the length', async () => {
    const template = await createTemplate({ options: [{ name: 'code', properties: { pattern: '^(a+)+$' } }] });
    for (const value of [`${'a'.repeat(30)}!`, `${'a'.repeat(100_000)}!`]) {
      const refusal = await createProject(withValues(template.id, { code: value }), 400);
      expect(refusal.details).toEqual([{ field: 'options.dataProperties.code', message: 'does not match the pattern ^(a+)+$' }]);
    }
    const accepted = await createProject(withValues(template.id, { code: 'a'.repeat(100_000) }), 201);
    expect(accepted.options.dataProperties.code).toHaveLength(100_000);
  });

  it('refuses at store time (400 naming the field) a pattern RE2 cannot compile: backreference, lookahead, lookbehind, broken syntax', async () => {
    const name = unique('Broken');
    for (const [pattern, reason] of [
      ['^(a)\\1$', 'invalid escape sequence: `\\1`'],
      ['^a(?=b)', 'invalid or unsupported Perl syntax: `(?=`'],
      ['(?<!x)y', expect.any(String)],
      ['([a-z', 'missing closing ]: `[a-z`'],
    ] as const) {
      const refusal = await createTemplate(
        {
          name,
          options: [
            { name: 'fine', properties: { pattern: '^x$' } },
            { name: 'bad', properties: { pattern } },
          ],
        },
        400,
      );
      expect(refusal.details, pattern).toEqual([
        {
          field: 'options[1].properties.pattern',
          message:
            typeof reason === 'string' ? `is not a valid RE2 regular expression: ${reason}` : expect.stringMatching(/^is not a valid RE2 regular expression: /),
        },
      ]);
      expect(refusal.message).toMatch(/^options\[1\]\.properties\.pattern: is not a valid RE2 regular expression: /);
    }
    expect(await rest(member, 'GET', `/api/project-templates?filter=${encodeURIComponent(`name=="${name}"`)}`, 200)).toMatchObject({ content: [] });
  });

  it('names every refused pattern at once, and refuses one written by an update (REST PUT)', async () => {
    const refusal = await createTemplate(
      { options: [{ name: 'a', properties: { pattern: '(x)\\1' } }, { name: 'b' }, { name: 'c', properties: { pattern: '(?=y)' } }] },
      400,
    );
    expect(refusal.details.map((d: { field: string }) => d.field)).toEqual(['options[0].properties.pattern', 'options[2].properties.pattern']);

    const template = await createTemplate({ options: [{ name: 'code', properties: { pattern: '^[A-Z]{3}$' } }] });
    const update = await rest(member, 'PUT', `/api/project-templates/${template.id}`, 400, {
      options: [{ name: 'code', properties: { pattern: '^([A-Z])\\1$' } }],
    });
    expect(update.details).toEqual([
      { field: 'options[0].properties.pattern', message: 'is not a valid RE2 regular expression: invalid escape sequence: `\\1`' },
    ]);
    expect((await rest(member, 'GET', `/api/project-templates/${template.id}`, 200)).options).toEqual(template.options);
    // An update that leaves the options alone is not concerned.
    await rest(member, 'PUT', `/api/project-templates/${template.id}`, 200, { description: 'renamed' });
  });

  it('refuses the same through the GraphQL createProjectTemplate and updateProjectTemplate mutations', async () => {
    const created = await server.graphql(
      CREATE_TEMPLATE,
      { input: { organizationId: organization.id, name: unique('Gql'), options: [{ name: 'x', properties: { pattern: '(a)\\1' } }] } },
      member.key,
    );
    expect(created.body.errors?.[0]?.extensions, created.text).toMatchObject({
      code: 'BAD_REQUEST',
      status: 400,
      details: [{ field: 'options[0].properties.pattern', message: 'is not a valid RE2 regular expression: invalid escape sequence: `\\1`' }],
    });
    const template = await createTemplate({ options: [] });
    const updated = await server.graphql(
      UPDATE_TEMPLATE,
      { id: template.id, input: { options: [{ name: 'x', properties: { pattern: 'a(?=b)' } }] } },
      member.key,
    );
    expect(updated.body.errors?.[0]?.extensions, updated.text).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'options[0].properties.pattern' }] });
  });

  it('answers 400 naming the option when a pattern stored before patterns were checked is not RE2', async () => {
    const template = await createTemplate({ options: [{ name: 'legacy', properties: { pattern: '^x$' } }] });
    const legacy = [{ name: 'legacy', properties: { pattern: '^(x)\\1$' } }];
    await server.orm.em
      .fork()
      .getConnection()
      .execute('update project_template set options = ? where id = ?', [JSON.stringify(legacy), template.id]);
    const refusal = await createProject(withValues(template.id, { legacy: 'xx' }), 400);
    expect(refusal.details).toEqual([
      {
        field: 'options.dataProperties.legacy',
        message: "the project template's pattern for this option is not a valid RE2 regular expression (invalid escape sequence: `\\1`)",
      },
    ]);
  });

  it('accepts and refuses values as before with a valid pattern (unanchored search, patternMessage), through REST and GraphQL', async () => {
    const data = await server.graphqlData(
      CREATE_TEMPLATE,
      {
        input: {
          organizationId: organization.id,
          name: unique('Valid'),
          options: [
            { name: 'code', properties: { pattern: '^[A-Z]{3}$', patternMessage: 'three capital letters' } },
            { name: 'ticket', properties: { pattern: '\\d' } },
          ],
        },
      },
      member.key,
    );
    const id = data.createProjectTemplate.id;
    expect((await createProject(withValues(id, { code: 'abc' }), 400)).details).toEqual([
      { field: 'options.dataProperties.code', message: 'three capital letters' },
    ]);
    expect((await createProject(withValues(id, { code: 'ABC', ticket: 'none' }), 400)).details).toEqual([
      { field: 'options.dataProperties.ticket', message: 'does not match the pattern \\d' },
    ]);
    // Unanchored: a digit anywhere matches, as RegExp.test did.
    expect((await createProject(withValues(id, { code: 'ABC', ticket: 'T-7x' }), 201)).options.dataProperties).toEqual({ code: 'ABC', ticket: 'T-7x' });

    const viaGraphql = await server.graphql(
      CREATE_PROJECT,
      { input: { organizationId: organization.id, name: unique('GqlProject'), ...withValues(id, { code: 'abcd' }) } },
      member.key,
    );
    expect(viaGraphql.body.errors?.[0]?.extensions, viaGraphql.text).toMatchObject({
      code: 'BAD_REQUEST',
      details: [{ field: 'options.dataProperties.code', message: 'three capital letters' }],
    });
    const ok = await server.graphqlData(
      CREATE_PROJECT,
      { input: { organizationId: organization.id, name: unique('GqlProject'), ...withValues(id, { code: 'XYZ' }) } },
      member.key,
    );
    expect(ok.createProject.options.dataProperties).toEqual({ code: 'XYZ' });
  });
});

describe('JSONata regex literals are RE2', () => {
  it('refuses at store time an activity plan step whose expression holds a regex RE2 cannot compile', async () => {
    const refusal = await rest(member, 'POST', '/api/activity-plans', 400, {
      organizationId: organization.id,
      name: unique('Plan'),
      steps: [{ ref: 'check', name: 'Check', stepType: 'SCRIPT', options: { expression: '$contains($string(input), /(a)\\1/)' } }],
    });
    expect(refusal.details).toEqual([
      {
        field: 'steps[0].options.expression',
        message: 'does not parse as JSONata: regular expression /(a)\\1/ is not a valid RE2 regular expression: invalid escape sequence: `\\1`',
      },
    ]);
    await rest(member, 'POST', '/api/activity-plans', 201, {
      organizationId: organization.id,
      name: unique('Plan'),
      steps: [{ ref: 'check', name: 'Check', stepType: 'SCRIPT', options: { expression: '$contains($string(input), /^a+$/i)' } }],
    });
  });

  it('evaluates regex literals through the RE2 engine in linear time, with the results RegExp gave', async () => {
    expect(expressionSyntaxProblem('$match(s, /a(?=b)/)')).toMatch(/is not a valid RE2 regular expression: invalid or unsupported Perl syntax/);
    // JSONata's sequences carry flags of their own: compared as JSON.
    const evaluate = async (text: string, input: unknown, RegexEngine: unknown = Re2RegexEngine) =>
      JSON.parse(JSON.stringify((await jsonata(text, { RegexEngine: RegexEngine as RegExpConstructor }).evaluate(input)) ?? null));
    expect(await evaluate('$contains(s, /^(a+)+$/)', { s: `${'a'.repeat(100_000)}!` })).toBe(false);
    expect(await evaluate('$match(s, /(\\w+) (\\w+)/)', { s: 'John Smith, Jane Doe' })).toEqual([
      { match: 'John Smith', index: 0, groups: ['John', 'Smith'] },
      { match: 'Jane Doe', index: 12, groups: ['Jane', 'Doe'] },
    ]);
    for (const [text, input] of [
      ['$match(s, /(\\w+) (\\w+)/)', { s: 'John Smith, Jane Doe' }],
      ['$match(s, /(x)?b/)', { s: 'ab' }],
      ['$match(s, /^line\\d$/m)', { s: 'line1\nline2' }],
      ['$replace(s, /a(.)/i, "<$1>")', { s: 'AbracadAbra' }],
      ['$split(s, /[0-9]+/)', { s: 'a1b22c' }],
      ['$replace(s, /[ab]/, "Z")', { s: '😀a😀b' }],
      ['items[name ~> /^a/i].name', { items: [{ name: 'Apple' }, { name: 'banana' }, { name: 'avocado' }] }],
    ] as const) {
      expect(await evaluate(text, input), text).toEqual(await evaluate(text, input, RegExp));
    }
    // A regex built at evaluation time ($eval) that RE2 cannot compile fails that evaluation.
    await expect(evaluate('$eval("$contains(\\"aa\\", /(a)\\\\1/)")', {})).rejects.toMatchObject({
      code: 'D3121',
      value: expect.stringContaining('is not a valid RE2 regular expression'),
    });
  });
});

describe('the egress guard and special-purpose addresses', () => {
  async function proxied(baseUrl: string) {
    const bridge = await rest(member, 'POST', '/api/service-bridges', 201, {
      organizationId: organization.id,
      name: unique('Bridge'),
      baseUrl,
      endpoints: [{ name: 'call', method: 'GET', path: '/echo' }],
    });
    return server.request('GET', `/api/service-bridges/${bridge.id}/proxy/call`, { key: member.key });
  }

  it('refuses IPv4-compatible, NAT64, 6to4, site-local, documentation, discard, SRv6 and other special address literals with 400', async () => {
    const cases: [string, string][] = [
      ['http://[::127.0.0.1]', '::7f00:1 is an IPv4-compatible address (::/96, deprecated)'],
      ['http://[::a00:1]', '::a00:1 is an IPv4-compatible address (::/96, deprecated)'],
      ['http://[::ffff:127.0.0.1]', '127.0.0.1 is a loopback address'],
      ['http://[64:ff9b::7f00:1]', '64:ff9b::7f00:1 is a NAT64 address (64:ff9b::/96)'],
      ['http://[2002:7f00:1::]', '2002:7f00:1:: is a 6to4 address (2002::/16)'],
      ['http://[fec0::1]', 'fec0::1 is a site-local address (fec0::/10, deprecated)'],
      ['http://[2001:db8::1]', '2001:db8::1 is a documentation address (2001:db8::/32)'],
      ['http://[100::1]', '100::1 is a discard-only address (100::/64)'],
      ['http://[3fff::1]', '3fff::1 is a documentation address (3fff::/20)'],
      ['http://[5f00::1]', '5f00::1 is an SRv6 SID address (5f00::/16)'],
      ['http://198.18.0.1', '198.18.0.1 is a benchmarking address (198.18.0.0/15)'],
      ['http://192.0.0.1', '192.0.0.1 is an IETF protocol assignment address (192.0.0.0/24)'],
    ];
    for (const [baseUrl, reason] of cases) {
      const answer = await proxied(baseUrl);
      expect(answer.status, `${baseUrl}: ${answer.text}`).toBe(400);
      expect(answer.body.message).toBe(`service bridge egress denied: ${reason}`);
    }
  });
});

describe('refusedAddress', () => {
  const IPV4_COMPATIBLE = 'an IPv4-compatible address (::/96, deprecated)';
  /** Each range, what its addresses are called, and what its first (then last) address is called when a more specific range holds it. */
  const RANGES: [cidr: string, kind: string, first?: string, last?: string][] = [
    ['0.0.0.0/8', 'a "this network" address (0.0.0.0/8)', 'an unspecified address'],
    ['10.0.0.0/8', 'a private address'],
    ['100.64.0.0/10', 'a carrier-grade NAT address'],
    ['127.0.0.0/8', 'a loopback address'],
    ['169.254.0.0/16', 'a link-local address'],
    ['172.16.0.0/12', 'a private address'],
    ['192.0.0.0/24', 'an IETF protocol assignment address (192.0.0.0/24)'],
    ['192.0.2.0/24', 'a documentation address (192.0.2.0/24)'],
    ['192.88.99.0/24', 'a 6to4 relay anycast address (192.88.99.0/24, deprecated)'],
    ['192.168.0.0/16', 'a private address'],
    ['198.18.0.0/15', 'a benchmarking address (198.18.0.0/15)'],
    ['198.51.100.0/24', 'a documentation address (198.51.100.0/24)'],
    ['203.0.113.0/24', 'a documentation address (203.0.113.0/24)'],
    ['224.0.0.0/4', 'a multicast address'],
    ['240.0.0.0/4', 'a reserved address (240.0.0.0/4)', undefined, 'a broadcast address'],
    ['255.255.255.255/32', 'a broadcast address'],
    ['::/128', 'an unspecified address'],
    ['::1/128', 'a loopback address'],
    ['::/96', IPV4_COMPATIBLE, 'an unspecified address'],
    ['::ffff:0:0:0/96', 'an IPv4-translated address (::ffff:0:0:0/96)'],
    ['64:ff9b::/96', 'a NAT64 address (64:ff9b::/96)'],
    ['64:ff9b:1::/48', 'a local-use NAT64 address (64:ff9b:1::/48)'],
    ['100::/64', 'a discard-only address (100::/64)'],
    ['2001::/23', 'an IETF protocol assignment address (2001::/23)', 'a Teredo address (2001::/32)'],
    ['2001::/32', 'a Teredo address (2001::/32)'],
    ['2001:2::/48', 'a benchmarking address (2001:2::/48)'],
    ['2001:10::/28', 'an ORCHID address (2001:10::/28, deprecated)'],
    ['2001:20::/28', 'an ORCHIDv2 address (2001:20::/28)'],
    ['2001:db8::/32', 'a documentation address (2001:db8::/32)'],
    ['2002::/16', 'a 6to4 address (2002::/16)'],
    ['3fff::/20', 'a documentation address (3fff::/20)'],
    ['5f00::/16', 'an SRv6 SID address (5f00::/16)'],
    ['fc00::/7', 'a private (unique-local) address'],
    ['fe80::/10', 'a link-local address'],
    ['fec0::/10', 'a site-local address (fec0::/10, deprecated)'],
    ['ff00::/8', 'a multicast address'],
  ];

  function edges(cidr: string): [string, string] {
    const family = cidr.includes(':') ? ipaddr.IPv6 : ipaddr.IPv4;
    return [family.networkAddressFromCIDR(cidr).toString(), family.broadcastAddressFromCIDR(cidr).toString()];
  }

  it.each(RANGES)('refuses the first and last address of %s as %s', (cidr, kind, first, last) => {
    const [low, high] = edges(cidr);
    expect(refusedAddress(low), low).toEqual({ address: low, kind: first ?? kind });
    expect(refusedAddress(high), high).toEqual({ address: high, kind: last ?? kind });
  });

  it('judges an IPv4-mapped address as the IPv4 address it carries', () => {
    expect(refusedAddress('::ffff:0:0')).toEqual({ address: '0.0.0.0', kind: 'an unspecified address' });
    expect(refusedAddress('::ffff:ffff:ffff')).toEqual({ address: '255.255.255.255', kind: 'a broadcast address' });
    expect(refusedAddress('::ffff:10.1.2.3')).toEqual({ address: '10.1.2.3', kind: 'a private address' });
    expect(refusedAddress('::ffff:8.8.8.8')).toBeUndefined();
  });

  it('judges IPv4-compatible `::a.b.c.d` as IPv6 in ::/96, not as the IPv4 address it carries', () => {
    expect(refusedAddress('::8.8.8.8')).toEqual({ address: '::808:808', kind: IPV4_COMPATIBLE });
    expect(refusedAddress('::127.0.0.1')).toEqual({ address: '::7f00:1', kind: IPV4_COMPATIBLE });
    expect(refusedAddress('0:0:0:0:0:0:10.0.0.1')).toEqual({ address: '::a00:1', kind: IPV4_COMPATIBLE });
    expect(refusedAddress('64:ff9b::8.8.8.8')).toEqual({ address: '64:ff9b::808:808', kind: 'a NAT64 address (64:ff9b::/96)' });
  });

  it('refuses IPv6 outside the global unicast space 2000::/3 and cloud metadata addresses', () => {
    for (const address of ['::1:0:0:0', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '4000::1', 'e000::1']) {
      expect(refusedAddress(address), address).toMatchObject({ kind: 'an address outside the IPv6 global unicast space (2000::/3)' });
    }
    expect(refusedAddress('fd00:ec2::254')).toEqual({ address: 'fd00:ec2::254', kind: 'a cloud metadata address' });
    expect(refusedAddress('169.254.169.254')).toEqual({ address: '169.254.169.254', kind: 'a cloud metadata address' });
  });

  it('lets global unicast addresses through, the neighbours of refused ranges among them', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.0.3.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
      '2606:4700:4700::1111',
      '[2606:4700:4700::1111]',
      '2001:4860:4860::8888',
      '2001:200::1',
      '2003::1',
      '3fff:1000::1',
    ]) {
      expect(refusedAddress(address), address).toBeUndefined();
    }
  });

  it('refuses any address inside ::/96, in either notation (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (n) => {
        const hex = `::${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
        const dotted = `::${[n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.')}`;
        for (const address of [hex, dotted]) {
          const refused = refusedAddress(address);
          expect(refused, address).toBeDefined();
          if (n > 1) expect(refused!.kind, address).toBe(IPV4_COMPATIBLE);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
