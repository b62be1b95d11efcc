import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverSkills, parseSkill, skillCatalog } from '../../../src/core/skills/skills';
import { MemoryLogger } from '../../fakes/memoryLogger';
import { startModelServer } from '../../fixtures/modelServer';
import type { ModelServer } from '../../fixtures/modelServer';
import { BUILTIN_SKILLS, createHarness, WIRES } from './harness';

function writeSkill(root: string, folder: string, text: string): void {
  fs.mkdirSync(path.join(root, folder), { recursive: true });
  fs.writeFileSync(path.join(root, folder, 'SKILL.md'), text);
}

describe('skills: discovery', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'tasklane-skills-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('ships at least three built-in skills with names, descriptions and bodies', async () => {
    const skills = await discoverSkills([BUILTIN_SKILLS]);
    assert.deepEqual(
      skills.map((s) => s.name),
      ['changelog', 'triage-failing-tests', 'update-dependencies'],
    );
    for (const skill of skills) {
      assert.ok(skill.description.length > 40, `${skill.name} has a useful description`);
      assert.ok(skill.body.length > 400, `${skill.name} has a real body`);
      assert.doesNotMatch(skill.body, /^---/);
    }
  });

  it('reads workspace folders, skips broken SKILL.md files with a reason, earlier folders win', async () => {
    const builtin = path.join(root, 'builtin');
    const workspace = path.join(root, '.agents', 'skills');
    writeSkill(builtin, 'release', '---\nname: release\ndescription: Cut a release.\n---\nBuilt-in body');
    writeSkill(workspace, 'release-copy', '---\nname: release\ndescription: Shadowed.\n---\nWorkspace body');
    writeSkill(workspace, 'deploy', '---\ndescription: Deploy to staging.\n---\n# Deploy\nSteps');
    writeSkill(workspace, 'nodesc', '---\nname: nodesc\n---\nbody');
    writeSkill(workspace, 'badyaml', '---\nname: [unclosed\n---\nbody');
    fs.mkdirSync(path.join(workspace, 'empty-folder'));
    const logger = new MemoryLogger();
    const skills = await discoverSkills([builtin, workspace, path.join(root, 'missing')], logger);
    assert.deepEqual(
      skills.map((s) => [s.name, s.body]),
      [
        ['deploy', '# Deploy\nSteps'],
        ['release', 'Built-in body'],
      ],
    );
    assert.ok(logger.lines.some((l) => /nodesc.*add a 'description'/.test(l)));
    assert.ok(logger.lines.some((l) => /badyaml.*not valid YAML/.test(l)));
    assert.ok(logger.lines.some((l) => /'release'.*shadowed/.test(l)));
    assert.equal(skillCatalog(skills), '- deploy: Deploy to staging.\n- release: Cut a release.');
  });

  it('parses a SKILL.md without frontmatter as nameless (skipped)', () => {
    assert.equal(parseSkill('just text', '/x/y/SKILL.md'), undefined);
  });
});

for (const wire of WIRES) {
  describe(`skills: selection at task start (${wire})`, () => {
    let server: ModelServer;
    before(async () => {
      server = await startModelServer();
    });
    after(async () => server.close());

    it('offers the catalog to the conversation and injects the chosen skill into the task prefix only', async () => {
      server.reset();
      const h = await createHarness({ wire, server });
      try {
        server.script([
          {
            toolCalls: [
              { name: 'task_start', arguments: { name: 'Fix tests', instruction: 'The unit tests fail', mode: 'simple', skills: ['triage-failing-tests'] } },
            ],
          },
          { toolCalls: [{ name: 'task_end', arguments: { summary: 'triaged' } }] },
        ]);
        await h.agent.sendMessage('the tests fail, look into it');
        await h.idle();
        const conversation = JSON.stringify(server.requests[0].body);
        assert.match(conversation, /triage-failing-tests: Triage failing tests/);
        assert.doesNotMatch(conversation, /Triaging failing tests/, 'bodies are not in the conversation prompt');
        const taskRequest = JSON.stringify(server.requests[1].body);
        assert.match(taskRequest, /Skill: triage-failing-tests[\s\S]*Triaging failing tests/);
        assert.doesNotMatch(taskRequest, /Writing a changelog entry/);
        assert.deepEqual(h.agent.views.snapshot().tasks[0].selectedSkills, ['triage-failing-tests']);
      } finally {
        await h.close();
      }
    });

    it('rejects an unknown skill with a message naming the catalog and starts nothing', async () => {
      server.reset();
      const h = await createHarness({ wire, server });
      try {
        server.script([{ toolCalls: [{ name: 'task_start', arguments: { name: 'X', instruction: 'Do X', mode: 'simple', skills: ['nope'] } }] }]);
        await h.agent.sendMessage('do x');
        await h.idle();
        const session = h.agent.views.snapshot().sessions[0];
        assert.match(
          session.messages.at(-1)!.text,
          /Unknown skill\(s\): nope\. Use names from the catalog: changelog, triage-failing-tests, update-dependencies/,
        );
        assert.equal(h.agent.views.snapshot().tasks.length, 0);
      } finally {
        await h.close();
      }
    });
  });
}
