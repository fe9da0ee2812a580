// Workloads the shared JavaScript anchors leave out, on Reactive Data Client 0.18 (the bundle
// ../shared/bench/js-anchor-0.18/build makes), with the anchors' timing loop and entities:
// a warm memo read, and the same read after a write it does not depend on (a table the read
// does not touch, or another row), the write made outside the clock as in rdc's workloads.
// Usage: ANCHOR_BUNDLE=.../dc-0.18.mjs node scripts/bench-anchor-extra.mjs FIXTURE_DIR
import fs from 'fs';
const { normalize, MemoCache, Entity } = await import(process.env.ANCHOR_BUNDLE);
const dir = process.argv[2];
const minMs = Number(process.env.MIN_MS || 1500);
class BuildType extends Entity { id = ''; pk() { return this.id; } static key = 'BuildType'; }
class Project extends Entity {
  id = ''; buildTypes = { count: 0, buildType: [] };
  pk() { return this.id; } static key = 'Project';
  static schema = { buildTypes: { buildType: [BuildType] } };
}
class User extends Entity { login = ''; id = 0; pk() { return this.login; } static key = 'User'; }
const S = { project: [Project] };
const data = JSON.parse(fs.readFileSync(`${dir}/projects.json`, 'utf8'));
const user = JSON.parse(fs.readFileSync(`${dir}/user.json`, 'utf8'));

// The anchors' loop (5 warm-up runs, samples for at least MIN_MS, median), with an untimed setup.
function timeWith(name, setup, fn) {
  for (let i = 0; i < 5; i++) fn(setup());
  const samples = [];
  const end = performance.now() + minMs;
  while (performance.now() < end || samples.length < 5) {
    const input = setup();
    const t = performance.now();
    fn(input);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  console.log(`${name}\t${(samples[samples.length >> 1] * 1000).toFixed(1)}`);
}

// A write as the store makes it: the table written is copied, the others kept.
const withUser = (entities, k, followers) =>
  ({ ...entities, User: { ...(entities.User || {}), [`user${k}`]: { ...user, login: `user${k}`, followers } } });

const norm = normalize(S, data);
let entities = norm.entities;
const memo = new MemoCache();
memo.denormalize(S, norm.result, entities, []);
let i = 0;
timeWith('denormalizeLong withCache after an unrelated write',
  () => { i++; entities = withUser(entities, i % 1000, i); return entities; },
  (e) => memo.denormalize(S, norm.result, e, []));

const users = {};
for (let k = 0; k < 100000; k++) users[`user${k}`] = { ...user, login: `user${k}`, followers: 0 };
let store = { User: users };
const umemo = new MemoCache();
umemo.denormalize(User, 'user7', store, []);
timeWith('warm read in 100k store', () => store, (e) => umemo.denormalize(User, 'user7', e, []));
let j = 0;
timeWith('warm read in 100k store after an unrelated write',
  () => { j++; store = withUser(store, 8 + (j % 1000), j); return store; },
  (e) => umemo.denormalize(User, 'user7', e, []));
