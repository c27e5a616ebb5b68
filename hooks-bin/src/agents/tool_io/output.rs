//! Tool outputs: what a `tool_result` handler sees of an agent's `tool_response`, and how new
//! content is written back in a shape the agent accepts.
//!
//! The content is what the model gets: the text (and images) of the output, chunk by chunk, in
//! the model's order. A rewrite is written back in the output's own shape when the agent can
//! carry it; when it cannot, [`ToolOutputView::rewrite`] says so ([`Unfit`]) and the protocol
//! withholds the output ([`ToolOutputView::withheld`]) instead of letting the original through.
//!
//! # Claude Code's built-in tools (2.1.328)
//!
//! Claude Code checks an `updatedToolOutput` against the tool's own output schema and sends the
//! original output to the model when it does not match, so each built-in tool has its shape
//! here, read from the schemas in its binary and measured end to end (tests/tests/e2e):
//!
//! | tool, variant | content | a rewrite is written as |
//! | --- | --- | --- |
//! | `Read` `text` | `file.content` | `file.content` |
//! | `Read` `image` | the image (`file.base64`, `file.type`) | the image (JPEG, PNG, GIF or WebP), or text alone as a `text` read |
//! | `Read` `notebook` | per cell its `source`, then each output's `text` and `image` | the same chunks in the same places (an unchanged image stays), or text alone as a `text` read |
//! | `Read` `pdf` | the document, as a `document` chunk (`source.data` = the base64) | text alone, as a `text` read (the PDF's bytes cannot be changed) |
//! | `Read` `parts` (pages of a PDF read with `pages`) | each page image, then each page's text layer | the same chunks in the same places, or text alone as a `text` read |
//! | `Bash` | `stdout`, then `stderr` when not empty (`stdout` an image when `isImage`; the text blocks of `structuredContent` when it has some) | the same fields, other keys kept; text alone in `stdout` |
//! | `Grep` `content`, `count` | `content` | `content`; text alone as `content` mode |
//! | `Grep` `files_with_matches`, `Glob` | the file names, one per line | the file names |
//! | `WebFetch` | `result` | `result` |
//! | `NotebookEdit` | `new_source` (what the model is shown back) | `new_source` |
//! | `Edit`, `Write` | none: the model is only told, by Claude Code, that the file at `filePath` was written | no rewrite: new content cannot be carried |
//! | `mcp__*` (an MCP tool: not checked by Claude Code) | a string, or the content blocks | the same, new blocks allowed |
//!
//! Any other tool or shape: the content is the output as compact JSON, for handlers to read;
//! it has no shape-preserving rewrite. The whole output is always the event's `details`.
//!
//! # Other agents
//!
//! Codex sends every `tool_response` as a string ([`super::super::codex`] replaces it with
//! text), except `view_image`'s list of `input_image` items, whose `data:` URL images are
//! image chunks. A string is one text chunk; an array of content blocks is the blocks; an
//! object with a block array `content` (an MCP result) is those blocks.

use serde_json::{Map, Value, json};

use hookwright::events::{Content, ImageContent};

/// The image types Claude Code's schemas accept (`Read`'s images, a notebook's, a PDF's pages).
const CLAUDE_IMAGE_TYPES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];

/// A tool's output (`tool_response`) seen as content chunks, with what is needed to write new
/// content back in a shape the agent accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutputView {
    tool: String,
    original: Value,
    shape: Shape,
    content: Vec<Content>,
}

/// How an output was shaped.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// A string.
    Text,
    /// An array of content blocks.
    Blocks,
    /// An object whose `content` is an array of content blocks (an MCP result).
    BlocksField,
    /// One of Claude Code's built-in tools: each chunk at a known place.
    Claude { kind: Kind, slots: Vec<Slot> },
    /// Anything else: the content is the compact JSON text.
    Opaque,
}

/// Claude Code's built-in output shapes (see the [module table](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read(&'static str),
    Bash,
    Grep(&'static str),
    Glob,
    WebFetch,
    NotebookEdit,
    /// `Edit`, `Write`: the model is told by Claude Code that the file was written, with its
    /// path; no text of the output reaches it.
    Told(&'static str),
}

/// Where one content chunk came from, as JSON pointers into the output.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    /// A string.
    Text(String),
    /// Strings, one per line of the chunk.
    Lines(String),
    /// An image: its base64 data and its MIME type.
    Image { data: String, mime: String },
    /// An image as a `data:` URL string.
    DataUrl(String),
    /// A chunk that can only stay as it is (a PDF document's bytes).
    Fixed,
}

/// Why a rewrite cannot be carried: the agent's shape for this output (`Read notebook`) has no
/// place for the new content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfit {
    /// The tool and, where it has several, the variant of its output: `Read image`, `Bash`.
    pub output: String,
}

impl ToolOutputView {
    /// Reads `response`, the output of the agent's tool `tool` (its own name: `Read`,
    /// `exec_command`); see the [module table](self).
    #[must_use]
    pub fn new(tool: &str, response: Value) -> Self {
        let (shape, content) = read_shape(tool, &response);
        ToolOutputView {
            tool: tool.to_owned(),
            original: response,
            shape,
            content,
        }
    }

    /// The output as content chunks (what `tool_result` handlers see as `content`).
    #[must_use]
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The output as received.
    #[must_use]
    pub fn original(&self) -> &Value {
        &self.original
    }

    /// The tool and variant, as [`Unfit::output`] names them.
    #[must_use]
    pub fn describe(&self) -> String {
        match &self.shape {
            Shape::Claude { kind, .. } => kind.describe(),
            _ => self.tool.clone(),
        }
    }

    /// The output with its content replaced by `content`, in a shape the agent accepts.
    ///
    /// # Errors
    /// [`Unfit`] when the output's shape cannot carry `content` (an image next to new text in
    /// a `Read` image, a changed PDF, any change of an output of unknown shape).
    pub fn rewrite(&self, content: &[Content]) -> Result<Value, Unfit> {
        let unfit = || Unfit {
            output: self.describe(),
        };
        let all_text = content.iter().all(|c| c.as_text().is_some());
        match &self.shape {
            Shape::Text if all_text => Ok(Value::String(join_text(content))),
            Shape::Blocks => Ok(blocks(content)),
            Shape::BlocksField => {
                let mut out = self.original.clone();
                out["content"] = blocks(content);
                Ok(out)
            }
            Shape::Claude { kind, slots } => self
                .write_slots(slots, content)
                .or_else(|| {
                    all_text
                        .then(|| kind.as_text(&self.original, &join_text(content)))
                        .flatten()
                })
                .ok_or_else(unfit),
            Shape::Opaque if all_text && self.is_mcp() => Ok(Value::String(join_text(content))),
            Shape::Text | Shape::Opaque => Err(unfit()),
        }
    }

    /// The output replaced by `notice` alone, in a shape the agent accepts; `None` when no
    /// shape is known (an output of an unknown tool).
    #[must_use]
    pub fn withheld(&self, notice: &str) -> Option<Value> {
        let text = [Content::text(notice)];
        match &self.shape {
            Shape::Opaque if self.is_mcp() => Some(Value::String(notice.into())),
            Shape::Opaque => None,
            Shape::Claude { kind, .. } => kind.as_text(&self.original, notice),
            _ => self.rewrite(&text).ok(),
        }
    }

    /// Whether the tool is an MCP tool, whose output Claude Code passes on unchecked.
    fn is_mcp(&self) -> bool {
        self.tool.starts_with("mcp__")
    }

    /// `content` written into `slots` of the original, when it has one chunk per slot of the
    /// slot's kind (and a [`Slot::Fixed`] chunk unchanged).
    fn write_slots(&self, slots: &[Slot], content: &[Content]) -> Option<Value> {
        if slots.len() != content.len() {
            return None;
        }
        let mut out = self.original.clone();
        for (i, (slot, chunk)) in slots.iter().zip(content).enumerate() {
            match (slot, chunk) {
                (Slot::Text(at), Content::Text(t)) => *out.pointer_mut(at)? = json!(t.text),
                (Slot::Lines(at), Content::Text(t)) => {
                    *out.pointer_mut(at)? = json!(t.text.lines().collect::<Vec<_>>());
                }
                (Slot::Image { data, mime }, Content::Image(img))
                    if CLAUDE_IMAGE_TYPES.contains(&img.mime_type.as_str()) =>
                {
                    *out.pointer_mut(data)? = json!(img.data);
                    *out.pointer_mut(mime)? = json!(img.mime_type);
                }
                (Slot::DataUrl(at), Content::Image(img)) => {
                    *out.pointer_mut(at)? = json!(data_url(img));
                }
                (Slot::Fixed, chunk) if Some(chunk) == self.content.get(i) => {}
                _ => return None,
            }
        }
        Some(out)
    }
}

impl Kind {
    fn describe(self) -> String {
        match self {
            Kind::Read(variant) => format!("Read {variant}"),
            Kind::Bash => "Bash".to_owned(),
            Kind::Grep(mode) => format!("Grep {mode}"),
            Kind::Glob => "Glob".to_owned(),
            Kind::WebFetch => "WebFetch".to_owned(),
            Kind::NotebookEdit => "NotebookEdit".to_owned(),
            Kind::Told(tool) => tool.to_owned(),
        }
    }

    /// `original` carrying `text` alone, in a shape of the same tool; `None` for a tool whose
    /// output shows the model no text of its own ([`Kind::Told`]).
    fn as_text(self, original: &Value, text: &str) -> Option<Value> {
        let lines = text.lines().count().max(1);
        let mut out = original.clone();
        match self {
            Kind::Read("text") => out["file"]["content"] = json!(text),
            Kind::Read(_) => {
                let path = original["file"]["filePath"].as_str().unwrap_or_default();
                out = json!({"type": "text", "file": {
                    "filePath": path, "content": text,
                    "numLines": lines, "startLine": 1, "totalLines": lines,
                }});
            }
            Kind::Bash => {
                if let Some(obj) = out.as_object_mut() {
                    for key in [
                        "structuredContent",
                        "persistedOutputPath",
                        "persistedOutputSize",
                        "stdoutHoldsOutputEnd",
                    ] {
                        obj.remove(key);
                    }
                    obj.insert("stdout".into(), json!(text));
                    obj.insert("stderr".into(), json!(""));
                    if obj.contains_key("isImage") {
                        obj.insert("isImage".into(), json!(false));
                    }
                }
            }
            Kind::Grep(_) => {
                out = json!({
                    "mode": "content", "numFiles": 0, "filenames": [],
                    "content": text, "numLines": lines,
                });
            }
            Kind::Glob => {
                let names: Vec<&str> = text.lines().collect();
                out["numFiles"] = json!(names.len());
                out["filenames"] = json!(names);
                out["truncated"] = json!(false);
            }
            Kind::WebFetch => out["result"] = json!(text),
            Kind::NotebookEdit => out["new_source"] = json!(text),
            Kind::Told(_) => return None,
        }
        Some(out)
    }
}

/// The text chunks of `content` joined with newlines (other chunks dropped).
#[must_use]
pub fn join_text(content: &[Content]) -> String {
    content
        .iter()
        .filter_map(Content::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn blocks(content: &[Content]) -> Value {
    serde_json::to_value(content).unwrap_or_else(|_| Value::Array(Vec::new()))
}

fn is_block_array(items: &[Value]) -> bool {
    items
        .iter()
        .all(|v| v.get("type").is_some_and(Value::is_string))
}

/// A content block as a chunk: Codex's `input_image` with a `data:` URL is an image.
fn parse_block(v: &Value) -> Content {
    if v["type"] == "input_image"
        && let Some(image) = v["image_url"].as_str().and_then(image_of_data_url)
    {
        return image;
    }
    serde_json::from_value(v.clone()).unwrap_or_else(|_| Content::Other(v.clone()))
}

fn parse_blocks(items: &[Value]) -> Vec<Content> {
    items.iter().map(parse_block).collect()
}

/// The image of a `data:MIME;base64,DATA` URL.
fn image_of_data_url(url: &str) -> Option<Content> {
    let (mime, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
    Some(Content::Image(ImageContent {
        data: data.to_owned(),
        mime_type: mime.to_owned(),
        extra: hookwright::events::Extra::new(),
    }))
}

fn data_url(image: &ImageContent) -> String {
    format!("data:{};base64,{}", image.mime_type, image.data)
}

fn read_shape(tool: &str, response: &Value) -> (Shape, Vec<Content>) {
    if let Some((kind, slots, content)) = response.as_object().and_then(|o| claude(tool, o)) {
        return (Shape::Claude { kind, slots }, content);
    }
    match response {
        Value::String(s) => (Shape::Text, vec![Content::text(s.clone())]),
        Value::Array(items) if is_block_array(items) => (Shape::Blocks, parse_blocks(items)),
        Value::Object(obj) => match obj.get("content") {
            Some(Value::Array(items)) if is_block_array(items) => {
                (Shape::BlocksField, parse_blocks(items))
            }
            _ => (Shape::Opaque, vec![Content::text(response.to_string())]),
        },
        Value::Null => (Shape::Opaque, Vec::new()),
        other => (Shape::Opaque, vec![Content::text(other.to_string())]),
    }
}

/// Collects chunks and their slots.
#[derive(Default)]
struct Chunks {
    slots: Vec<Slot>,
    content: Vec<Content>,
}

impl Chunks {
    fn text(&mut self, at: String, text: &str) {
        self.slots.push(Slot::Text(at));
        self.content.push(Content::text(text));
    }

    fn image(&mut self, data_at: String, mime_at: String, data: &str, mime: &str) {
        self.slots.push(Slot::Image {
            data: data_at,
            mime: mime_at,
        });
        self.content.push(Content::Image(ImageContent {
            data: data.to_owned(),
            mime_type: mime.to_owned(),
            extra: hookwright::events::Extra::new(),
        }));
    }

    fn done(self, kind: Kind) -> Option<(Kind, Vec<Slot>, Vec<Content>)> {
        Some((kind, self.slots, self.content))
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// One of Claude Code's built-in shapes for `tool`'s output `obj`, with its chunks.
fn claude(tool: &str, obj: &Map<String, Value>) -> Option<(Kind, Vec<Slot>, Vec<Content>)> {
    let value = Value::Object(obj.clone());
    let mut chunks = Chunks::default();
    match tool {
        "Read" => {
            let file = obj.get("file")?;
            match str_at(&value, "type")? {
                "text" => {
                    chunks.text("/file/content".into(), str_at(file, "content")?);
                    chunks.done(Kind::Read("text"))
                }
                "image" => {
                    let (data, mime) = (str_at(file, "base64")?, str_at(file, "type")?);
                    chunks.image("/file/base64".into(), "/file/type".into(), data, mime);
                    chunks.done(Kind::Read("image"))
                }
                "notebook" => {
                    for (i, cell) in file.get("cells")?.as_array()?.iter().enumerate() {
                        notebook_cell(&mut chunks, &format!("/file/cells/{i}"), cell);
                    }
                    chunks.done(Kind::Read("notebook"))
                }
                "pdf" => {
                    let data = str_at(file, "base64")?;
                    chunks.slots.push(Slot::Fixed);
                    chunks.content.push(Content::Other(json!({
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
                    })));
                    chunks.done(Kind::Read("pdf"))
                }
                "parts" => {
                    let pages = obj.get("pages").and_then(Value::as_array);
                    for (i, page) in pages.into_iter().flatten().enumerate() {
                        if let (Some(data), Some(mime)) =
                            (str_at(page, "base64"), str_at(page, "mediaType"))
                            && !data.is_empty()
                        {
                            let at = format!("/pages/{i}");
                            chunks.image(
                                format!("{at}/base64"),
                                format!("{at}/mediaType"),
                                data,
                                mime,
                            );
                        }
                    }
                    for (i, page) in pages.into_iter().flatten().enumerate() {
                        if let Some(text) = str_at(page, "text") {
                            chunks.text(format!("/pages/{i}/text"), text);
                        }
                    }
                    chunks.done(Kind::Read("parts"))
                }
                _ => None,
            }
        }
        "Bash" => {
            let stdout = str_at(&value, "stdout")?;
            let stderr = str_at(&value, "stderr").unwrap_or("");
            let structured = obj.get("structuredContent").and_then(Value::as_array);
            if let Some(items) = structured.filter(|items| !items.is_empty()) {
                for (i, item) in items.iter().enumerate() {
                    match str_at(item, "text").filter(|_| item["type"] == "text") {
                        Some(text) => chunks.text(format!("/structuredContent/{i}/text"), text),
                        None => {
                            chunks.slots.push(Slot::Fixed);
                            chunks.content.push(parse_block(item));
                        }
                    }
                }
                return chunks.done(Kind::Bash);
            }
            match image_of_data_url(stdout).filter(|_| obj.get("isImage") == Some(&json!(true))) {
                Some(image) => {
                    chunks.slots.push(Slot::DataUrl("/stdout".into()));
                    chunks.content.push(image);
                }
                None => chunks.text("/stdout".into(), stdout),
            }
            if !stderr.is_empty() {
                chunks.text("/stderr".into(), stderr);
            }
            chunks.done(Kind::Bash)
        }
        "Grep" => {
            obj.get("filenames")?.as_array()?;
            let mode = match str_at(&value, "mode") {
                Some("content") => "content",
                Some("count") => "count",
                _ => {
                    lines(&mut chunks, obj.get("filenames")?);
                    return chunks.done(Kind::Grep("files_with_matches"));
                }
            };
            chunks.text("/content".into(), str_at(&value, "content").unwrap_or(""));
            chunks.done(Kind::Grep(mode))
        }
        "Glob" => {
            lines(&mut chunks, obj.get("filenames")?);
            chunks.done(Kind::Glob)
        }
        "WebFetch" => {
            chunks.text("/result".into(), str_at(&value, "result")?);
            chunks.done(Kind::WebFetch)
        }
        "NotebookEdit" => {
            chunks.text("/new_source".into(), str_at(&value, "new_source")?);
            chunks.done(Kind::NotebookEdit)
        }
        "Edit" => obj
            .contains_key("filePath")
            .then_some((Kind::Told("Edit"), vec![], vec![])),
        "Write" => obj
            .contains_key("filePath")
            .then_some((Kind::Told("Write"), vec![], vec![])),
        _ => None,
    }
}

/// The file names of `Grep` or `Glob` as one chunk, one per line.
fn lines(chunks: &mut Chunks, names: &Value) {
    let names: Vec<&str> = names
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    chunks.slots.push(Slot::Lines("/filenames".into()));
    chunks.content.push(Content::text(names.join("\n")));
}

/// A notebook cell's chunks: its source, then each output's text and image.
fn notebook_cell(chunks: &mut Chunks, at: &str, cell: &Value) {
    if let Some(source) = str_at(cell, "source") {
        chunks.text(format!("{at}/source"), source);
    }
    let outputs = cell.get("outputs").and_then(Value::as_array);
    for (j, output) in outputs.into_iter().flatten().enumerate() {
        let at = format!("{at}/outputs/{j}");
        if let Some(text) = str_at(output, "text") {
            chunks.text(format!("{at}/text"), text);
        }
        let image = output.get("image");
        if let Some((data, mime)) =
            image.and_then(|i| Some((str_at(i, "image_data")?, str_at(i, "media_type")?)))
        {
            chunks.image(
                format!("{at}/image/image_data"),
                format!("{at}/image/media_type"),
                data,
                mime,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_with_one_chunk_per_place_keeps_the_output_shape() {
        let view = ToolOutputView::new(
            "Bash",
            json!({"stdout": "a", "stderr": "b", "interrupted": false, "isImage": false}),
        );
        assert_eq!(view.content().len(), 2);
        let out = view
            .rewrite(&[Content::text("A"), Content::text("B")])
            .unwrap();
        assert_eq!(
            out,
            json!({"stdout": "A", "stderr": "B", "interrupted": false, "isImage": false})
        );
        let out = view.rewrite(&[Content::text("all")]).unwrap();
        assert_eq!(
            (&out["stdout"], &out["stderr"]),
            (&json!("all"), &json!(""))
        );
    }

    #[test]
    fn a_fixed_chunk_may_stay_but_never_change() {
        let view = ToolOutputView::new(
            "Read",
            json!({"type": "pdf", "file": {"filePath": "/d.pdf", "base64": "JVBE", "originalSize": 3}}),
        );
        let same = view.content().to_vec();
        assert_eq!(view.rewrite(&same).unwrap(), *view.original());
        let changed = [Content::Other(
            json!({"type": "document", "source": {"data": "AAAA"}}),
        )];
        assert_eq!(
            view.rewrite(&changed),
            Err(Unfit {
                output: "Read pdf".into()
            })
        );
    }

    #[test]
    fn an_unknown_shape_has_no_rewrite_and_no_withheld_form() {
        let view = ToolOutputView::new("TodoWrite", json!({"newTodos": []}));
        assert_eq!(view.describe(), "TodoWrite");
        assert!(view.rewrite(&[Content::text("x")]).is_err());
        assert_eq!(view.withheld("n"), None);
        let mcp = ToolOutputView::new("mcp__s__t", json!({"weird": 1}));
        assert_eq!(
            mcp.withheld("n"),
            Some(json!("n")),
            "MCP output is not checked"
        );
    }

    #[test]
    fn data_urls_are_images() {
        let Some(Content::Image(image)) = image_of_data_url("data:image/png;base64,iVBO") else {
            panic!("an image");
        };
        assert_eq!(
            (image.mime_type.as_str(), image.data.as_str()),
            ("image/png", "iVBO")
        );
        assert_eq!(data_url(&image), "data:image/png;base64,iVBO");
        assert!(image_of_data_url("data:text/plain,hi").is_none());
    }
}
