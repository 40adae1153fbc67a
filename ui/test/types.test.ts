import { describe, expect, it } from "vitest";
import type { EditRecord } from "../src/types";
import editRecord from "./fixtures/edit-record.json";

// The Rust test `api::tests::ui_fixture_is_a_serialized_edit_record` keeps the fixture equal to
// a serialized `EditRecord`; this one keeps the types equal to the fixture, field for field
// (`false`: serialized only when set, as `approved_text`).
const FIELDS: Record<keyof EditRecord, boolean> = {
  id: true,
  document_id: true,
  document_title: true,
  agent: true,
  tool: true,
  arguments: true,
  reason: true,
  revision: true,
  preview: true,
  touched_blocks: true,
  new_blocks: true,
  undoable: true,
  undoes: true,
  status: true,
  comment: true,
  decided_by: true,
  approved_text: false,
  parts: false,
  approved_parts: false,
  part_texts: false,
  proposed_comment: false,
  proposed_document: false,
  error: true,
  created_at: true,
  decided_at: true,
  applied_at: true,
  saved_at: true,
};

describe("the EditRecord type", () => {
  it("has the fields of the serialized record, and no others", () => {
    const always = Object.entries(FIELDS).filter(([, present]) => present).map(([field]) => field);
    expect(Object.keys(editRecord).sort()).toEqual(always.sort());
  });
});
