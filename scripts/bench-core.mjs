// Runs rdc-core's wasm workloads in Node. Usage: node bench-core.mjs PKG_JS FIXTURE_DIR
import { createRequire } from 'module';
import fs from 'fs';
const require = createRequire(import.meta.url);
const { run_workloads } = require(process.argv[2]);
const dir = process.argv[3];
const projects = fs.readFileSync(`${dir}/projects.json`, 'utf8');
const user = fs.readFileSync(`${dir}/user.json`, 'utf8');
process.stdout.write(run_workloads(projects, user, Number(process.env.MIN_MS || 1500), process.env.RDC_BENCH_ONLY || ''));
