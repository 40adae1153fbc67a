//! A GFM table as the parser gives it: cells row by row, the header row first, assembled
//! into BlockNote's table content padded to its widest row (BlockNote keeps tables
//! rectangular; a short row's missing cells are empty, a header row's are header cells).

use crate::blocknote::tree::{Inline, TableCell, TableContent, TableRow};

/// The table being read.
#[derive(Default)]
pub(super) struct TableBuilder {
    rows: Vec<TableRow>,
    cells: Vec<TableCell>,
    in_head: bool,
}

impl TableBuilder {
    /// The header row starts: its cells are header cells.
    pub(super) fn start_head(&mut self) {
        self.in_head = true;
        self.cells.clear();
    }

    pub(super) fn start_row(&mut self) {
        self.cells.clear();
    }

    pub(super) fn cell(&mut self, content: Vec<Inline>) {
        self.cells.push(TableCell {
            header: self.in_head,
            props: Default::default(),
            colwidth: None,
            content,
        });
    }

    /// The header row or a body row ends.
    pub(super) fn end_row(&mut self) {
        self.rows.push(TableRow {
            cells: std::mem::take(&mut self.cells),
        });
        self.in_head = false;
    }

    /// The table's content, or `None` for a table without rows.
    pub(super) fn finish(self) -> Option<TableContent> {
        if self.rows.is_empty() {
            return None;
        }
        let mut table = TableContent { rows: self.rows };
        let width = table.width();
        for row in &mut table.rows {
            let header = row.cells.first().is_some_and(|c| c.header);
            while row.cells.len() < width {
                row.cells.push(TableCell {
                    header,
                    props: Default::default(),
                    colwidth: None,
                    content: vec![],
                });
            }
        }
        Some(table)
    }
}
