/**
 * The embedded store's own thread (started by embedded-store.ts): dynalite serves the DynamoDB API here, so its
 * validation, expression evaluation and LevelDB work run on a second core instead of between the gateway's
 * request handling and stream chunks. Plain CommonJS because a worker gets no TypeScript loader in every host
 * (tsx, vitest, plain node).
 */
const { parentPort, workerData } = require('node:worker_threads');
const dynalite = require('dynalite');

const server = dynalite(workerData.options);
server.once('error', (error) => parentPort.postMessage({ type: 'failed', message: error.message }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port }));

parentPort.on('message', (message) => {
  if (message !== 'close') return;
  // Closing the server closes the LevelDB files too, so the data folder can be opened again once this answers.
  server.close((error) => {
    parentPort.postMessage({ type: 'closed', message: error ? error.message : undefined });
    parentPort.close();
  });
  // Keep-alive sockets of the SDK clients would hold the close open.
  server.closeAllConnections();
});
