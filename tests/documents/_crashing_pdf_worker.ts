/**
 * A worker for `_pdf_split_test.ts` that ends with an uncaught error when it is given a job, as
 * a worker of `_pdf_split.ts` would if it crashed.
 * @module
 */
(globalThis as unknown as { onmessage: () => void }).onmessage = () => {
  throw new Error("crashed on purpose");
};
