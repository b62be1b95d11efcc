import * as assert from 'node:assert/strict';
import { localizedManifest, manifestStrings, nlsKey, rawManifest } from '../../support/manifest';

// Localisation of the manifest (docs/ARCHITECTURE.md, "Words and languages"): every string a
// person reads in VS Code's own UI (commands, views, settings, the walkthrough, the chat
// participant, the tools' names for people) comes from package.nls.json, so a translation is a
// file next to it (package.nls.<locale>.json). The tools' `modelDescription`s stay English in the
// manifest on purpose: they are the model's instructions, not the person's.

type Node = Record<string, unknown>;

/** Every person-facing string of a manifest, by where it is. */
function personFacing(manifest: Node): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const take = (where: string, value: unknown) => {
    if (typeof value === 'string') out.push([where, value]);
  };
  const c = manifest.contributes as Node;
  take('description', manifest.description);
  take('capabilities.untrustedWorkspaces.description', ((manifest.capabilities as Node).untrustedWorkspaces as Node).description);
  for (const container of (c.viewsContainers as { activitybar: Node[] }).activitybar) take(`viewsContainers.${container.id}.title`, container.title);
  for (const views of Object.values(c.views as Record<string, Node[]>))
    for (const view of views) for (const field of ['name', 'contextualTitle']) take(`views.${view.id}.${field}`, view[field]);
  for (const command of c.commands as Node[]) for (const field of ['title', 'shortTitle', 'category']) take(`${command.command}.${field}`, command[field]);
  for (const section of c.configuration as Node[]) {
    take(`configuration.${section.id}.title`, section.title);
    for (const [key, setting] of Object.entries(section.properties as Record<string, Node>)) {
      for (const field of ['description', 'markdownDescription', 'deprecationMessage']) take(`${key}.${field}`, setting[field]);
      for (const field of ['enumDescriptions', 'markdownEnumDescriptions'])
        ((setting[field] as string[] | undefined) ?? []).forEach((text, i) => take(`${key}.${field}[${i}]`, text));
    }
  }
  for (const walkthrough of c.walkthroughs as Node[]) {
    for (const field of ['title', 'description']) take(`walkthroughs.${walkthrough.id}.${field}`, walkthrough[field]);
    for (const step of walkthrough.steps as Node[])
      for (const field of ['title', 'description']) take(`walkthroughs.${walkthrough.id}.${step.id}.${field}`, step[field]);
  }
  for (const participant of c.chatParticipants as Node[]) {
    for (const field of ['fullName', 'description']) take(`chatParticipants.${participant.id}.${field}`, participant[field]);
    for (const command of (participant.commands as Node[] | undefined) ?? [])
      take(`chatParticipants.${participant.id}.${command.name}.description`, command.description);
  }
  for (const tool of c.languageModelTools as Node[]) for (const field of ['displayName', 'userDescription']) take(`tools.${tool.name}.${field}`, tool[field]);
  for (const welcome of (c.viewsWelcome as Node[] | undefined) ?? []) take(`viewsWelcome.${welcome.view}.contents`, welcome.contents);
  return out;
}

/** A pseudo-locale: every letter accented and the text bracketed, placeholders and links kept working. */
function pseudo(text: string): string {
  const accents: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', A: 'Á', E: 'É', I: 'Í', O: 'Ó', U: 'Ú', n: 'ñ', c: 'ç' };
  // Leave `code`, (command:…) link targets, #setting# links and {0} placeholders as they are.
  const parts = text.split(/(`[^`]*`|\]\([^)]*\)|#[\w.]+#|\{\d+\})/);
  return `⟦${parts.map((part, i) => (i % 2 ? part : part.replace(/[aeiouAEIOUnc]/g, (ch) => accents[ch]!))).join('')}⟧`;
}

describe('localisation: the manifest', () => {
  const strings = manifestStrings();
  const raw = personFacing(rawManifest());

  it('takes every person-facing string from package.nls.json', () => {
    assert.ok(raw.length > 120, `only ${raw.length} person-facing strings found: is the walk still right?`);
    const literal = raw.filter(([, value]) => nlsKey(value) === undefined).map(([where, value]) => `${where}: ${JSON.stringify(value.slice(0, 60))}`);
    assert.deepEqual(literal, [], 'strings written in package.json instead of package.nls.json');
    const missing = raw.map(([, value]) => nlsKey(value)!).filter((key) => !(key in strings));
    assert.deepEqual(missing, [], 'keys package.nls.json does not define');
  });

  it('has no string in package.nls.json that nothing uses', () => {
    const used = new Set(raw.map(([, value]) => nlsKey(value)));
    assert.deepEqual(
      Object.keys(strings).filter((key) => !used.has(key)),
      [],
    );
  });

  it('a pseudo-locale bundle generated from it reaches every string a person reads', () => {
    const bundle = Object.fromEntries(Object.entries(strings).map(([key, text]) => [key, pseudo(text)]));
    const shown = personFacing(localizedManifest(bundle));
    const english = shown.filter(([, text]) => !(text.startsWith('⟦') && text.endsWith('⟧'))).map(([where]) => where);
    assert.deepEqual(english, [], 'left in English under the pseudo-locale');
    // The pseudo strings keep what VS Code acts on: command links and setting links still resolve.
    const links = shown.flatMap(([, text]) => [...text.matchAll(/\]\((command:[\w.]+)\)|#(tasklane\.[\w.]+)#/g)].map((m) => m[1] ?? m[2]));
    assert.ok(links.length >= 10, `only ${links.length} links survived`);
  });
});
