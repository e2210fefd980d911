// Jest maps `lmdb` here (jest.config.js, moduleNameMapper) so that every test file of a jest
// worker shares Node's one copy of lmdb-js. Jest otherwise loads lmdb-js's JavaScript anew for each
// test file, while its native part stays loaded once per process and keeps calling back into the
// first file's copy: a commit failure in a later file (the full-disk test) was then reported
// through a torn-down file's console and promises ("Cannot log after tests are done").
const Module = require('node:module');

const parent = { id: __filename, filename: __filename, paths: Module._nodeModulePaths(__dirname) };
module.exports = Module._load(Module._resolveFilename('lmdb', parent), null, false);
