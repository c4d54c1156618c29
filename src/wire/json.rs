//! A small JSON reader for runs that come from outside (links and files).
//!
//! The page writes JSON with serde, but reads it with this: a reader that
//! knows only the shapes a run needs is a fraction of the size of serde's
//! generic one in the page's WebAssembly, and every way the text can be
//! wrong becomes a plain error instead of a type mismatch. Numbers are kept
//! as written and read as integers on demand; nesting and length are bounded.

/// Arrays and objects nest at most this deep.
pub const DEPTH_MAX: usize = 16;

/// A parsed JSON value. Object members keep their order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number as written (`-5`, `1.5`, `2e3`).
    Number(String),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// Why a text is not JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// The text stops before the value is complete.
    CutShort,
    /// Something unexpected at a byte offset.
    Unexpected { at: usize, what: &'static str },
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::CutShort => f.write_str("the text stops in the middle"),
            JsonError::Unexpected { at, what } => write!(f, "{what} at character {}", at + 1),
        }
    }
}

impl Json {
    /// A member of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    /// A whole number from 0 up, if the value is one that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            _ => None,
        }
    }

    /// A whole number, negative or not, if the value is one that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => {
                let digits = n.strip_prefix('-').unwrap_or(n);
                let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                whole.then(|| n.parse().ok()).flatten()
            }
            _ => None,
        }
    }

    /// Whether the value is a number below zero.
    pub fn is_negative(&self) -> bool {
        match self {
            Json::Number(n) => {
                n.starts_with('-') && n[1..].bytes().any(|b| (b'1'..=b'9').contains(&b))
            }
            _ => false,
        }
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    /// The value as JSON text, compact (for messages).
    pub fn to_text(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.clone(),
            Json::Str(s) => format!("\"{s}\""),
            Json::Array(_) => "[…]".into(),
            Json::Object(_) => "{…}".into(),
        }
    }
}

/// Parses a whole text as one JSON value.
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = reader.value(0)?;
    reader.space();
    if reader.at < reader.bytes.len() {
        return Err(reader.unexpected("more text after the value"));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn unexpected(&self, what: &'static str) -> JsonError {
        JsonError::Unexpected { at: self.at, what }
    }

    fn peek(&self) -> Result<u8, JsonError> {
        self.bytes.get(self.at).copied().ok_or(JsonError::CutShort)
    }

    fn space(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.space();
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(Json::Str),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.unexpected("a character that starts no value")),
        }
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, JsonError> {
        let end = self.at + word.len();
        match self.bytes.get(self.at..end) {
            Some(found) if found == word.as_bytes() => {
                self.at = end;
                Ok(value)
            }
            Some(_) => Err(self.unexpected("a word that is not true, false or null")),
            None if word.as_bytes().starts_with(&self.bytes[self.at..]) => Err(JsonError::CutShort),
            None => Err(self.unexpected("a word that is not true, false or null")),
        }
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.at;
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
        let digits = text.strip_prefix('-').unwrap_or(text);
        if !digits.starts_with(|c: char| c.is_ascii_digit()) || text.len() > 40 {
            return Err(JsonError::Unexpected {
                at: start,
                what: "a malformed number",
            });
        }
        Ok(Json::Number(text.to_string()))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.at += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let b = self.peek()?;
            self.at += 1;
            match b {
                b'"' => break,
                b'\\' => self.escape(&mut out)?,
                0..=0x1f => return Err(self.unexpected("a control character in a string")),
                _ => out.push(b),
            }
        }
        String::from_utf8(out).map_err(|_| self.unexpected("text that is not UTF-8"))
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), JsonError> {
        let b = self.peek()?;
        self.at += 1;
        let plain = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hex = self
                    .bytes
                    .get(self.at..self.at + 4)
                    .ok_or(JsonError::CutShort)?;
                let code = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .ok_or_else(|| self.unexpected("a malformed \\u escape"))?;
                self.at += 4;
                // Lone surrogates cannot be text; they become U+FFFD.
                let c = char::from_u32(code).unwrap_or('\u{fffd}');
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            _ => return Err(self.unexpected("an unknown escape")),
        };
        out.push(plain);
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > DEPTH_MAX {
            return Err(self.unexpected("nesting deeper than a run needs"));
        }
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek()? == b']' {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.space();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.unexpected("something other than , or ] in a list")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > DEPTH_MAX {
            return Err(self.unexpected("nesting deeper than a run needs"));
        }
        self.at += 1;
        let mut members = Vec::new();
        self.space();
        if self.peek()? == b'}' {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.space();
            if self.peek()? != b'"' {
                return Err(self.unexpected("a name that is not in quotes"));
            }
            let key = self.string()?;
            self.space();
            if self.peek()? != b':' {
                return Err(self.unexpected("a name without a : after it"));
            }
            self.at += 1;
            members.push((key, self.value(depth)?));
            self.space();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.unexpected("something other than , or } in an object")),
            }
        }
    }
}
