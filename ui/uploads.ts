/**
 * The files of a new chat, each uploaded as soon as it is chosen: registered
 * with `POST /document`, then sent where the API said, with its progress.
 * @module
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiClient, describeError } from "./api_client.ts";
import type { Document } from "./api_types.ts";
import { refusal } from "./files.ts";

/** One chosen file and how its upload goes. */
export interface Upload {
  key: string;
  name: string;
  size: number;
  status: "uploading" | "done" | "refused" | "failed";
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
  /** Uploads still running. */
  pending: number;
  /** The uploaded documents, in the order chosen. */
  documents: Document[];
}

let counter = 0;

/** Uploads for a chat, accepting only the suffixes the API reads. */
export function useUploads(api: ApiClient, suffixes: readonly string[]): Uploads {
  const [items, setItems] = useState<Upload[]>([]);
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
        change(key, { status: "done", progress: 1, document });
      } catch (error) {
        if (!controller.signal.aborted) {
          change(key, { status: "failed", problem: describeError(error) });
        }
      } finally {
        controllers.current.delete(key);
      }
    }

    return {
      items,
      add(files) {
        const added: Upload[] = [];
        for (const file of files) {
          const key = `upload-${++counter}`;
          const problem = refusal(file.name, suffixes);
          added.push({
            key,
            name: file.name,
            size: file.size,
            status: problem ? "refused" : "uploading",
            progress: 0,
            problem: problem ?? undefined,
          });
          if (!problem) send(key, file);
        }
        setItems((list) => [...list, ...added]);
      },
      remove(key) {
        controllers.current.get(key)?.abort();
        setItems((list) => list.filter((item) => item.key !== key));
      },
      pending: items.filter((item) => item.status === "uploading").length,
      documents: items.flatMap((item) => item.document ? [item.document] : []),
    };
  }, [api, suffixes, items]);
}
