import assert from "node:assert/strict";
import { SvcError } from "../../../components/core/errors.ts";
import { LAYOUT_WINDOW } from "../../../components/documents/pdf/layout.ts";
import {
  pdfHandler,
  readPdfPages,
  streamPdfPages,
} from "../../../components/documents/pdf/handler.ts";
import { pdfWorkers } from "../../../components/core/pdf_workers.ts";
import { denoArgs, run } from "../../_process.ts";
import { tmpDir } from "../../test_utils.ts";
import { fixture, refusal } from "../_helpers.ts";
import { fixturePath, labelledPdf, pdftotext, wordAgreement } from "./_reference.ts";
import { integration } from "../../_tier.ts";

const REPORT = [
  {
    number: 1,
    text: "The Lindenbaum Bakery opened in 1952 on the corner of Mill Street and River Road. " +
      "Its founder, Greta Lindenbaum, baked rye bread in a wood-fired oven that is still used " +
      "today.\n\nEvery morning the bakery sells about four hundred loaves.",
  },
  {
    number: 2,
    text: "Page two describes the famous winter loaf. It is a sweet braided bread that is baked " +
      "only in December.\n\nThe secret ingredient is cardamom. The dough rests for twelve " +
      "hours before it is braided.",
  },
  {
    number: 3,
    text: "Page three lists the opening hours. The bakery is open from six in the morning until " +
      "two in the afternoon, Tuesday to Sunday, and is closed on Mondays.\n\nOrders for " +
      "weddings must be placed three weeks ahead.",
  },
];

Deno.test("`pdfHandler` reads .pdf files", () => {
  assert.deepEqual(pdfHandler.suffixes, [".pdf"]);
});

Deno.test("`pdfHandler` gives one numbered page per PDF page, its lines joined into paragraphs", async () => {
  assert.deepEqual(
    await pdfHandler.extractPages(await fixture("report.pdf"), "report.pdf"),
    REPORT,
  );
});

Deno.test("`pdfHandler` leaves the caller's bytes usable", async () => {
  const bytes = await fixture("report.pdf");
  const length = bytes.byteLength;
  await pdfHandler.extractPages(bytes, "report.pdf");
  assert.equal(bytes.byteLength, length);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
});

Deno.test("`pdfHandler` refuses an encrypted PDF", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("encrypted.pdf"), "encrypted.pdf"),
    refusal('Cannot read "encrypted.pdf": the file is encrypted'),
  );
});

Deno.test("`pdfHandler` refuses a PDF cut in half", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("truncated.pdf"), "truncated.pdf"),
    refusal('Cannot read "truncated.pdf": the file is truncated'),
  );
});

Deno.test("`pdfHandler` refuses a PDF missing only its last bytes, though pdfjs could recover it", async () => {
  const bytes = await fixture("report.pdf");
  await assert.rejects(
    pdfHandler.extractPages(bytes.subarray(0, bytes.length - 30), "report.pdf"),
    refusal('Cannot read "report.pdf": the file is truncated'),
  );
});

Deno.test("`pdfHandler` refuses a file that is not a PDF", async () => {
  await assert.rejects(
    pdfHandler.extractPages(await fixture("not_a_pdf.pdf"), "not_a_pdf.pdf"),
    refusal('Cannot read "not_a_pdf.pdf": the file is not a PDF'),
  );
});

Deno.test("`pdfHandler` finds the PDF header only within the first 1024 bytes", async () => {
  const report = await fixture("report.pdf");
  const late = new Uint8Array(1024 + report.length);
  late.fill(0x20, 0, 1024);
  late.set(report, 1024);
  await assert.rejects(
    pdfHandler.extractPages(late, "late.pdf"),
    refusal('Cannot read "late.pdf": the file is not a PDF'),
  );
  const early = new Uint8Array(1000 + report.length);
  early.fill(0x20, 0, 1000);
  early.set(report, 1000);
  assert.equal((await pdfHandler.extractPages(early, "early.pdf")).length, 3);
});

Deno.test("`pdfHandler` refuses a PDF whose structure pdfjs cannot read, printing nothing", async () => {
  const bytes = new TextEncoder().encode("%PDF-1.7\nnot really a PDF at all\n%%EOF\n");
  const printed: unknown[] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info };
  console.log =
    console.warn =
    console.error =
    console.info =
      (...args) => printed.push(args);
  try {
    await assert.rejects(
      pdfHandler.extractPages(bytes, "broken.pdf"),
      refusal('Cannot read "broken.pdf": the file is not a valid PDF'),
    );
  } finally {
    Object.assign(console, saved);
  }
  assert.deepEqual(printed, []);
});

Deno.test("`pdfHandler` refuses a PDF whose page tree counts -1 pages", async () => {
  const text = new TextDecoder("latin1").decode(await fixture("report.pdf"));
  const bytes = Uint8Array.from(text.replace("/Count 3", "/Count -1"), (c) => c.charCodeAt(0));
  for (const workers of [0, 1]) {
    await assert.rejects(
      readPdfPages(bytes, "counted.pdf", { workers }),
      refusal('Cannot read "counted.pdf": the file is not a valid PDF'),
    );
  }
});

integration.test("SVC_PDF_WORKERS sets the workers that read a PDF beside svc's thread, at most one a core", async () => {
  assert.equal(pdfWorkers({}), 0);
  assert.equal(pdfWorkers({ SVC_PDF_WORKERS: " 2 " }), Math.min(2, navigator.hardwareConcurrency));
  assert.equal(pdfWorkers({ SVC_PDF_WORKERS: "4096" }), navigator.hardwareConcurrency);
  for (const value of ["0", "-1", "two", "1.5"]) {
    assert.throws(() => pdfWorkers({ SVC_PDF_WORKERS: value }), {
      name: "SvcError",
      message: `SVC_PDF_WORKERS must be a positive whole number, not "${value}"`,
    });
  }
  // svc reading with a worker, as set in its environment, reads the same pages.
  const path = fixturePath("labelled/clsguide.pdf");
  const script = `import { pdfHandler } from "${
    new URL("../../../components/documents/pdf/handler.ts", import.meta.url).href
  }";
    const pages = await pdfHandler.extractPages(await Deno.readFile(${
    JSON.stringify(path)
  }), "a.pdf");
    console.log(JSON.stringify(pages));`;
  const ended = await run(Deno.execPath(), denoArgs("eval", script), {
    env: { SVC_PDF_WORKERS: "1" },
  });
  assert.equal(ended.code, 0, ended.stderr);
  const whole = await readPdfPages(await Deno.readFile(path), "a.pdf", { workers: 0 });
  assert.deepEqual(JSON.parse(ended.stdout), whole);
  assert.ok(whole.length > 32, "more pages than one turn, so that the worker reads some");
});

Deno.test("`pdfHandler` still reads PDFs after refusing bad ones", async () => {
  for (const name of ["encrypted.pdf", "truncated.pdf", "not_a_pdf.pdf"]) {
    await assert.rejects(pdfHandler.extractPages(await fixture(name), name), SvcError);
  }
  assert.deepEqual(
    await pdfHandler.extractPages(await fixture("report.pdf"), "report.pdf"),
    REPORT,
  );
});

Deno.test("`pdfHandler` puts a blank line between paragraphs, judged from the gaps between lines", async () => {
  const [page] = await pdfHandler.extractPages(await fixture("layout.pdf"), "layout.pdf");
  assert.deepEqual(page!.text.split("\n\n"), [
    "History",
    "Greta Lindenbaum learned her trade in a village bakery in the hills and brought its old " +
    "recipes and its traditions to the city, where she opened a shop in 1952.",
    "The first oven was fired with beech wood from the hills.",
  ]);
});

integration.test("`pdfHandler` joins a word hyphenated across two lines", async () => {
  const layout = await pdfHandler.extractPages(await fixture("layout.pdf"), "layout.pdf");
  assert.match(layout[0]!.text, / its traditions to the city/);
  // A TeX manual: pdftotext shows the word cut at the end of a line of the footnote.
  assert.match(await pdftotext(labelledPdf("grfguide.pdf"), 3), /many uses, how-\n\never a much/);
  const manual = await pdfHandler.extractPages(
    await Deno.readFile(labelledPdf("grfguide.pdf")),
    "g.pdf",
  );
  assert.match(manual[2]!.text, /many uses, however a much extended version/);
  assert.doesNotMatch(manual.map((page) => page.text).join("\n"), /\p{Ll}-\n\p{Ll}/u);
});

integration.test("`pdfHandler` leaves out a running header and the page numbers in it", async () => {
  const pages = await pdfHandler.extractPages(await fixture("layout.pdf"), "layout.pdf");
  assert.deepEqual(pages.map((page) => page.text.split("\n\n")[0]), [
    "History",
    "Bread",
    "Opening hours",
  ]);
  for (const page of pages) assert.doesNotMatch(page.text, /annual report|Page \d of 3/);
  assert.match(await pdftotext(fixturePath("layout.pdf"), 2), /annual report\n[^]*\nPage 2 of 3\n/);
});

integration.test("`pdfHandler` leaves out the page numbers at the foot of a manual's pages", async () => {
  const file = labelledPdf("usrguide.pdf");
  assert.match(await pdftotext(file, 5), /\n5\n/);
  const pages = await pdfHandler.extractPages(await Deno.readFile(file), "usrguide.pdf");
  assert.equal(pages.length, 21);
  for (const page of pages.slice(1)) {
    assert.doesNotMatch(page.text, new RegExp(`\\n${page.number}$`));
  }
  assert.match(pages[4]!.text, /[a-z.]$/);
});

Deno.test("`pdfHandler` keeps headings as paragraphs of their own", async () => {
  const pages = await pdfHandler.extractPages(
    await Deno.readFile(labelledPdf("grfguide.pdf")),
    "g.pdf",
  );
  const paragraphs = pages[2]!.text.split("\n\n");
  assert.ok(paragraphs.includes("3.1 Package Options"), paragraphs.join("\n---\n"));
  assert.ok(paragraphs.includes("3 Colour1"), "the heading with its footnote mark");
  assert.equal(pages[1]!.text.split("\n\n")[0], "1 Introduction");
});

Deno.test("`pdfHandler` takes notes in the margin out of the lines they stand beside", async () => {
  const file = labelledPdf("clsguide.pdf");
  const pages = await pdfHandler.extractPages(await Deno.readFile(file), "clsguide.pdf");
  const text = pages.map((page) => page.text).join("\n\n");
  assert.match(text, /code in the \\AtBeginDocument hook is part of the preamble\. Thus there/);
  assert.match(text, /\n\nNew description 1996\/12\/01(\n|$)/);
});

integration.test("`pdfHandler` gives the words pdftotext gives, but for running headers and page numbers", async () => {
  // What differs is mostly the page numbers, which pdftotext keeps.
  for (const name of ["grfguide.pdf", "usrguide.pdf", "clsguide.pdf"]) {
    const file = labelledPdf(name);
    const pages = await pdfHandler.extractPages(await Deno.readFile(file), name);
    const agreement = wordAgreement(
      pages.map((page) => page.text).join("\n"),
      await pdftotext(file),
    );
    assert.ok(agreement >= 0.995, `${name}: ${agreement}`);
  }
});

Deno.test("`readPdfPages()` gives the manuals' page texts on workers as on the calling thread", async () => {
  for (const name of ["grfguide.pdf", "usrguide.pdf", "clsguide.pdf"]) {
    const bytes = await Deno.readFile(labelledPdf(name));
    const serial = await readPdfPages(bytes, name, { workers: 0 });
    assert.deepEqual(await readPdfPages(bytes, name, { workers: 1 }), serial, name);
    assert.deepEqual(await pdfHandler.extractPages(bytes, name), serial, name);
  }
});

integration.test("`streamPdfPages()` gives a document longer than the layout's window page by page, as each copy alone", async () => {
  // Three copies of a manual joined: 99 pages, more than the layout holds, each page's running
  // lines judged from the pages around it. A line that opens each copy (its title) repeats three
  // times in the whole, but once among the pages around it, so it stays, as in the manual alone.
  await using dir = await tmpDir();
  const manual = labelledPdf("clsguide.pdf");
  const joined = `${dir.path}/three.pdf`;
  const ended = await run("pdfunite", [manual, manual, manual, joined]);
  assert.ok(ended.success, ended.stderr);
  const alone = await readPdfPages(await Deno.readFile(manual), "clsguide.pdf", { workers: 0 });
  assert.ok(alone.length * 3 > LAYOUT_WINDOW);
  const expected = [0, 1, 2].flatMap((copy) =>
    alone.map((page, i) => ({ ...page, number: copy * alone.length + i + 1 }))
  );
  const bytes = await Deno.readFile(joined);
  for (const workers of [0, 1]) {
    const pages = [];
    for await (const page of streamPdfPages(bytes, "three.pdf", { workers })) pages.push(page);
    assert.deepEqual(pages, expected, `${workers} worker(s)`);
  }
});

Deno.test("`streamPdfPages()` left after its first page lets go of the document and reads on", async () => {
  const bytes = await Deno.readFile(labelledPdf("clsguide.pdf"));
  for await (const page of streamPdfPages(bytes, "clsguide.pdf", { workers: 1 })) {
    assert.equal(page.number, 1);
    break;
  }
  assert.equal((await readPdfPages(bytes, "clsguide.pdf", { workers: 1 })).length, 33);
});

Deno.test("`streamPdfPages()` rejects with the signal's reason, not as an unreadable file", async () => {
  const bytes = await Deno.readFile(labelledPdf("clsguide.pdf"));
  const controller = new AbortController();
  const read: number[] = [];
  await assert.rejects(
    async () => {
      for await (
        const page of streamPdfPages(bytes, "clsguide.pdf", {
          workers: 1,
          signal: controller.signal,
        })
      ) {
        read.push(page.number ?? 0);
        controller.abort(new Error("no longer wanted"));
      }
    },
    (error: Error) => !(error instanceof SvcError) && error.message === "no longer wanted",
  );
  assert.deepEqual(read, [1]);
});

Deno.test("`readPdfPages()` on workers refuses a PDF as on the calling thread", async () => {
  await assert.rejects(
    readPdfPages(await fixture("encrypted.pdf"), "encrypted.pdf", { workers: 2 }),
    refusal('Cannot read "encrypted.pdf": the file is encrypted'),
  );
  const broken = new TextEncoder().encode("%PDF-1.7\nnot really a PDF at all\n%%EOF\n");
  await assert.rejects(
    readPdfPages(broken, "broken.pdf", { workers: 2 }),
    refusal('Cannot read "broken.pdf": the file is not a valid PDF'),
  );
});
