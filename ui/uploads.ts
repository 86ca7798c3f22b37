/**
 * The files of a new chat, each uploaded as soon as it is chosen: registered
 * with `POST /document`, then sent where the API said, with its progress,
 * then read by svc (`GET /documents/{id}/check`), so that a file it cannot
 * read is named at once.
 * @module
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, ApiError, describeError } from "./api_client.ts";
import type { Document, DocumentSummary } from "./api_types.ts";
import { refusal } from "./files.ts";

/** One chosen file and how its upload goes. */
export interface Upload {
  key: string;
  name: string;
  size: number;
  /** `checking`: uploaded, being read; `unreadable`: uploaded, but svc cannot read it. */
  status: "uploading" | "checking" | "done" | "refused" | "failed" | "unreadable";
  /** Its pages (or slides), once svc read it. */
  pages?: number;
  /** From 0 to 1. */
  progress: number;
  document?: Document;
  /** Why it was refused or failed, in words. */
  problem?: string;
}

/** What {@linkcode useUploads} gives. */
export interface Uploads {
  items: Upload[];
  add(files: Iterable<File>): void;
  remove(key: string): void;
  /** Puts another file in place of one, uploaded as {@linkcode Uploads.add} does. */
  replace(key: string, file: File): void;
  /** Marks the upload of a document as one svc cannot read, with why. */
  markUnreadable(documentId: string, problem: string): void;
  /** Uploads still running or being read. */
  pending: number;
  /** Uploaded documents svc could not read: removed or replaced before a chat is made. */
  unreadable: number;
  /** The uploaded documents, in the order chosen. */
  documents: Document[];
}

let counter = 0;

/**
 * Uploads for a chat, accepting only the suffixes the API reads; `kept`
 * documents of the user's, uploaded before, are in the list from the start.
 */
export function useUploads(
  api: ApiClient,
  suffixes: readonly string[],
  kept: readonly DocumentSummary[] = [],
): Uploads {
  const [items, setItems] = useState<Upload[]>(() =>
    kept.map((document) => ({
      key: `upload-${++counter}`,
      name: document.name,
      size: document.size ?? 0,
      status: "done",
      progress: 1,
      document: { id: document.id, name: document.name },
      ...(document.pages === null ? {} : { pages: document.pages }),
    }))
  );
  const controllers = useRef(new Map<string, AbortController>());
  // Leaving the dialog cancels what is still uploading.
  useEffect(() => () => controllers.current.forEach((controller) => controller.abort()), []);

  return useMemo(() => {
    const change = (key: string, patch: Partial<Upload>) =>
      setItems((list) => list.map((item) => item.key === key ? { ...item, ...patch } : item));

    async function send(key: string, file: File) {
      const controller = new AbortController();
      controllers.current.set(key, controller);
      try {
        const target = await api.registerDocument(file.name);
        const document = await api.upload(target, file, {
          signal: controller.signal,
          onProgress: (progress) => change(key, { progress }),
        });
        change(key, { status: "checking", progress: 1, document });
        await check(key, document);
      } catch (error) {
        if (!controller.signal.aborted) {
          change(key, { status: "failed", problem: describeError(error) });
        }
      } finally {
        controllers.current.delete(key);
      }
    }

    /**
     * Has svc read the uploaded document: a file it cannot read is named now; one whose
     * check could not run (svc out of reach) counts as uploaded, and preparing tells.
     */
    async function check(key: string, document: Document) {
      try {
        const { pages } = await api.checkDocument(document.id);
        change(key, { status: "done", pages });
      } catch (error) {
        const unreadable = error instanceof ApiError && error.status === 422;
        change(
          key,
          unreadable ? { status: "unreadable", problem: describeError(error) } : { status: "done" },
        );
      }
    }

    function start(file: File): Upload {
      const key = `upload-${++counter}`;
      const problem = refusal(file.name, suffixes);
      if (!problem) send(key, file);
      return {
        key,
        name: file.name,
        size: file.size,
        status: problem ? "refused" : "uploading",
        progress: 0,
        problem: problem ?? undefined,
      };
    }

    return {
      items,
      add(files) {
        const added = [...files].map(start);
        setItems((list) => [...list, ...added]);
      },
      replace(key, file) {
        controllers.current.get(key)?.abort();
        const replacement = start(file);
        setItems((list) => list.map((item) => item.key === key ? replacement : item));
      },
      markUnreadable(documentId, problem) {
        setItems((list) =>
          list.map((item) =>
            item.document?.id === documentId ? { ...item, status: "unreadable", problem } : item
          )
        );
      },
      remove(key) {
        controllers.current.get(key)?.abort();
        setItems((list) => list.filter((item) => item.key !== key));
      },
      pending: items.filter((item) => item.status === "uploading" || item.status === "checking")
        .length,
      unreadable: items.filter((item) => item.status === "unreadable").length,
      documents: items.flatMap((item) =>
        item.document && item.status === "done" ? [item.document] : []
      ),
    };
  }, [api, suffixes, items]);
}
