// Preloaded (NODE_OPTIONS=--require) into every Node process of the `cdk synth` test: records and refuses each
// TCP connection, so the test can prove synthesis needs no network. Local IPC (a socket path) stays allowed.
const { appendFileSync } = require('node:fs');
const net = require('node:net');

const attemptsFile = process.env.NETWORK_ATTEMPTS_FILE;
const connect = net.Socket.prototype.connect;

net.Socket.prototype.connect = function refuseTcp(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined && options.port !== undefined) {
    const target = `${options.host ?? 'localhost'}:${options.port}`;
    if (attemptsFile) appendFileSync(attemptsFile, `${process.argv.slice(1, 3).join(' ')} -> ${target}\n`);
    process.nextTick(() => this.destroy(new Error(`the synth test refuses network access (${target})`)));
    return this;
  }
  return connect.apply(this, args);
};
