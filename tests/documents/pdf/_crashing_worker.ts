/**
 * A worker for `split_test.ts` that reads as a worker of `split.ts` does, and ends with an
 * uncaught error once it sent two pages (sending no more meanwhile): a worker that dies midway
 * through a document.
 * @module
 */
import "../../../components/documents/pdf/_worker.ts";

const scope = globalThis as unknown as {
  postMessage(message: unknown, transfer?: Transferable[]): void;
};
const post = scope.postMessage.bind(scope);
let sent = 0;
scope.postMessage = (message, transfer) => {
  const page = typeof message === "object" && message !== null && "page" in message;
  if (page && sent === 2) return;
  post(message, transfer);
  if (page && ++sent === 2) {
    setTimeout(() => {
      throw new Error("crashed on purpose");
    });
  }
};
