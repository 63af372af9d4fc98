//! The MCP tools' arguments, through the tool calls of a real core
//! (`mcp::calls`, as `AlmanacMcp::call` makes them on a blocking thread):
//! the first byte picks the tool, the rest is its arguments' JSON object.
//! No arguments may panic a call; every refusal is an error with a
//! message. The token reads only: the write tools read their arguments and
//! are then refused by the API, so nothing is written and every input
//! meets the same core.
#![no_main]

mod common;

use std::sync::OnceLock;

use almanac_core::api::AuthorizedApi;
use almanac_core::fuzzing;
use almanac_core::mcp::McpContext;
use almanac_core::mcp::catalogue;
use almanac_core::tokens::Scope;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

struct Tools {
    names: Vec<String>,
    api: AuthorizedApi,
    context: McpContext,
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let live = common::live();
        let api = live
            .instance
            .plugin()
            .authorize(&live.read_token)
            .unwrap_or_else(|_| panic!("the read token is valid"));
        Tools {
            names: fuzzing::mcp_tools(),
            api,
            context: McpContext::from(&*live.instance),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    common::catch_overflow();
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    // What a client can send: `arguments` is a JSON object.
    let Ok(Value::Object(args)) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    let tools = tools();
    let name = tools.names[usize::from(pick) % tools.names.len()].clone();
    let writes = catalogue::scope_of(&name) == Some(Scope::EventsWrite);
    let (api, context) = (tools.api.clone(), tools.context.clone());
    let (tool, args) = (name.clone(), Value::Object(args));
    let result = common::live().runtime.block_on(async move {
        tokio::task::spawn_blocking(move || fuzzing::mcp_call(&api, &context, &tool, args))
            .await
            .expect("a tool call does not panic")
    });
    match result {
        Ok(answer) => {
            assert!(!writes, "{name} wrote with a read-only token: {answer}");
            assert!(answer.is_object(), "{name}: {answer}");
        }
        Err(refusal) => assert!(!refusal.trim().is_empty(), "{name}: an empty refusal"),
    }
});
