/**
 * Documents for a new chat, by picker or drag and drop: each file with its
 * own progress bar, a refused file with the reason.
 * @module
 */
import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { formatSize, pageCount } from "./files.ts";
import { Icon } from "./Icons.tsx";
import type { Uploads } from "./uploads.ts";

/** The drop zone and the list of chosen files. */
export function DocumentPicker(
  props: { uploads: Uploads; suffixes: string[]; error?: string },
): JSX.Element {
  const [dragging, setDragging] = useState(false);
  const { uploads } = props;
  return (
    <div class="field">
      <span class="label" id="documents-label">Documents</span>
      <div
        class={`dropzone${dragging ? " dragging" : ""}${props.error ? " invalid" : ""}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          if (event.dataTransfer) uploads.add(event.dataTransfer.files);
        }}
      >
        <Icon name="upload" class="dropzone-icon" />
        <p>
          <label for="files" class="link-like">Choose files</label> or drop them here
        </p>
        <p class="field-hint" id="files-hint">Accepted: {props.suffixes.join(", ")}</p>
        <input
          type="file"
          id="files"
          class="file-input"
          multiple
          accept={props.suffixes.join(",")}
          aria-labelledby="documents-label"
          aria-describedby={`files-hint${props.error ? " files-error" : ""}`}
          onChange={(event) => {
            const input = event.currentTarget;
            if (input.files) uploads.add(input.files);
            // Cleared so that choosing the same file again is noticed.
            input.value = "";
          }}
        />
      </div>
      {props.error && <p class="field-error" id="files-error">{props.error}</p>}
      {uploads.items.length > 0 && (
        <ul class="uploads" aria-label="Chosen files">
          {uploads.items.map((item) => (
            <li key={item.key} class={`upload ${item.status}`}>
              <Icon
                name={item.status === "done"
                  ? "check"
                  : item.status === "uploading" || item.status === "checking"
                  ? "file"
                  : "alert"}
              />
              <div class="upload-main">
                <div class="upload-line">
                  <span class="upload-name">{item.name}</span>
                  <span class="upload-size">
                    {item.status === "checking" && "Uploaded · reading… · "}
                    {item.status === "done" && item.pages === undefined && "Uploaded · "}
                    {item.status === "done" && item.pages !== undefined &&
                      `Uploaded · ${pageCount(item.name, item.pages)} · `}
                    {item.status === "uploading" && `${Math.round(item.progress * 100)}% of `}
                    {formatSize(item.size)}
                  </span>
                </div>
                {item.status === "uploading" && (
                  <progress
                    max={1}
                    value={item.progress}
                    aria-label={`Uploading ${item.name}`}
                  />
                )}
                {item.problem && (
                  <span class="upload-problem">
                    {/* The API's own sentence says what could not be read, and why. */}
                    {item.status === "refused"
                      ? "Not accepted: "
                      : item.status === "unreadable"
                      ? ""
                      : "Upload failed: "}
                    {item.problem}
                  </span>
                )}
              </div>
              {item.status === "unreadable" && (
                <label class="button ghost small replace-file">
                  Replace
                  <input
                    type="file"
                    class="visually-hidden"
                    accept={props.suffixes.join(",")}
                    aria-label={`Replace ${item.name}`}
                    onChange={(event) => {
                      const file = event.currentTarget.files?.[0];
                      if (file) uploads.replace(item.key, file);
                    }}
                  />
                </label>
              )}
              <button
                type="button"
                class="button icon-only ghost small"
                aria-label={`Remove ${item.name}`}
                onClick={() => uploads.remove(item.key)}
              >
                <Icon name="close" />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
