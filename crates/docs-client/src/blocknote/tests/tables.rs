//! Tables' header rows and columns, and column widths, as BlockNote 0.54 derives them from
//! `tableHeader` cells (found by the convergence soak, seed 1031).

use super::*;

/// A table block of `grid` (true: `tableHeader`), each cell holding its position as text.
fn table_doc(grid: &[&[bool]], colspan0: i64) -> (Doc, XmlFragmentRef) {
    let (d, f) = doc();
    {
        let mut txn = d.transact_mut();
        let root = f.insert(&mut txn, 0, XmlElementPrelim::empty("blockGroup"));
        let (_, tb) = container(&mut txn, &root, "t1", "table");
        attr(&mut txn, &tb, "textColor", s("default"));
        for (r, row) in grid.iter().enumerate() {
            let tr = tb.insert(&mut txn, r as u32, XmlElementPrelim::empty("tableRow"));
            for (c, header) in row.iter().enumerate() {
                let tag = if *header { "tableHeader" } else { "tableCell" };
                let cell = tr.insert(&mut txn, c as u32, XmlElementPrelim::empty(tag));
                let span = if r == 0 && c == 0 { colspan0 } else { 1 };
                attr(&mut txn, &cell, "colspan", num(span));
                let para = cell.insert(&mut txn, 0, XmlElementPrelim::empty("tableParagraph"));
                let x = para.insert(&mut txn, 0, XmlTextPrelim::new(""));
                x.insert(&mut txn, 0, &format!("{r}{c}"));
            }
        }
    }
    (d, f)
}

fn cells_json(row: &[&str], colspan0: u32) -> serde_json::Value {
    serde_json::Value::Array(
        row.iter()
            .enumerate()
            .map(|(c, text)| {
                serde_json::json!({"type": "tableCell", "props": {
                    "backgroundColor": "default", "textColor": "default", "textAlignment": "left",
                    "colspan": if c == 0 { colspan0 } else { 1 }, "rowspan": 1,
                }, "content": [{"type": "text", "text": text, "styles": {}}]})
            })
            .collect(),
    )
}

#[test]
fn header_rows_and_columns_count_every_all_header_row_and_column() {
    let (h, c) = (true, false);
    let (d, f) = table_doc(&[&[h, h, h], &[h, h, c], &[h, h, h]], 1);
    let j = json::block_json(&read(&d, &f).blocks[0]);
    assert_eq!(
        j["content"],
        serde_json::json!({
            "type": "tableContent",
            "columnWidths": [null, null, null],
            // Rows 0 and 2, not only the leading one; columns 0 and 1.
            "headerRows": 2,
            "headerCols": 2,
            "rows": [
                {"cells": cells_json(&["00", "01", "02"], 1)},
                {"cells": cells_json(&["10", "11", "12"], 1)},
                {"cells": cells_json(&["20", "21", "22"], 1)},
            ],
        })
    );
}

#[test]
fn a_header_column_alone_is_counted_and_a_spanning_cell_widens_the_widths() {
    let (h, c) = (true, false);
    let (d, f) = table_doc(&[&[h, c], &[h, c, c]], 2);
    let j = json::block_json(&read(&d, &f).blocks[0]);
    assert_eq!(
        j["content"],
        serde_json::json!({
            "type": "tableContent",
            "columnWidths": [null, null, null],
            "headerCols": 1,
            "rows": [
                {"cells": cells_json(&["00", "01"], 2)},
                {"cells": cells_json(&["10", "11", "12"], 1)},
            ],
        })
    );
}

#[test]
fn header_columns_in_json_are_written_as_header_cells() {
    let blocks = json::blocks_from_json(&serde_json::json!([{
        "id": "t1", "type": "table", "props": {},
        "content": {"type": "tableContent", "headerRows": 1, "headerCols": 1, "rows": [
            {"cells": ["a", "b"]}, {"cells": ["c", "d"]},
        ]},
    }]));
    let BlockContent::Table { table } = &blocks[0].content else {
        panic!("not a table: {:?}", blocks[0].content)
    };
    let headers: Vec<Vec<bool>> = table
        .rows
        .iter()
        .map(|r| r.cells.iter().map(|c| c.header).collect())
        .collect();
    assert_eq!(headers, vec![vec![true, true], vec![true, false]]);
}
