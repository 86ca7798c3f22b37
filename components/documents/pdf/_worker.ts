/**
 * The worker of `split.ts`: opens a PDF, reads its turns of pages in order and sends each
 * page's text items, packed, as soon as it is read, as far ahead as it was allowed; or sends the
 * name and message of the error that stopped it.
 * @module
 */
import {
  packPage,
  type PdfCredit,
  type PdfStripeJob,
  type PdfStripeReply,
  stripePages,
} from "./split.ts";
import { openPdf } from "./open.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<PdfStripeJob | PdfCredit>) => void) | null;
  postMessage(reply: PdfStripeReply, transfer?: Transferable[]): void;
};

/** How many more pages it may read, and what wakes it when it waits for more. */
let credit = 0;
let wake: (() => void) | undefined;

scope.onmessage = ({ data }) => {
  if (!("bytes" in data)) {
    credit += data.credit;
    wake?.();
    return;
  }
  credit += data.credit;
  read(data);
};

async function read({ bytes, thread, threads, stripe }: PdfStripeJob): Promise<void> {
  try {
    await using document = await openPdf(bytes);
    scope.postMessage({ pageCount: document.pageCount });
    for (const number of stripePages(document.pageCount, { thread, threads, stripe })) {
      while (credit === 0) await new Promise<void>((resolve) => wake = resolve);
      credit--;
      const page = packPage(number, await document.page(number));
      scope.postMessage({ page }, [page.numbers.buffer]);
    }
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    scope.postMessage({ error: { name, message } });
  }
}
