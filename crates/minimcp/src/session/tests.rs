//! The session driven directly, with no transport: units in, messages out through a port
//! that records them. Waiting for the client (parking), the order of one origin's answers,
//! timers and cancellation checks are checked here step by step.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use serde_json::{json, Value};

use super::{Origin, Polled, Port, Session};
use crate::jsonrpc::Unit;
use crate::{Elicited, Limits, Server, Tool, ToolOutput};

/// What the session sent and finished, and what a running handler may still poll.
#[derive(Default)]
struct Wire {
    sent: Vec<(Origin, Value)>,
    finished: Vec<Origin>,
    /// Input already received but not yet handed over: what `poll` sees.
    pending: VecDeque<(Value, Origin)>,
}

struct TestPort(Rc<RefCell<Wire>>);

impl Port for TestPort {
    fn send(&mut self, to: Origin, message: &[u8], _: Option<i64>) {
        let message = serde_json::from_slice(message).expect("the session writes JSON");
        self.0.borrow_mut().sent.push((to, message));
    }
    fn finish(&mut self, to: Origin) {
        self.0.borrow_mut().finished.push(to);
    }
    fn flush(&mut self) {}
    fn poll(&mut self, wanted: &dyn Fn(&Value) -> bool) -> Option<Polled> {
        let mut wire = self.0.borrow_mut();
        if !wanted(&wire.pending.front()?.0) {
            return None;
        }
        let (value, origin) = wire.pending.pop_front()?;
        Some(Polled::Unit(Unit(Ok(value)), origin))
    }
}

fn server(limits: Limits) -> Server {
    let none = json!({"type": "object"});
    Server::builder("t", "1")
        .limits(limits)
        .tool(Tool::new("ask", "Asks a name", none.clone(), |_, ctx| {
            let form = json!({"type": "object", "properties": {"name": {"type": "string"}}});
            match ctx.elicit("Name?", form)? {
                Elicited::Accept(content) => {
                    Ok(ToolOutput::text(format!("hi {}", content["name"])))
                }
                _ => Ok(ToolOutput::text("declined")),
            }
        }))
        .tool(Tool::new(
            "twice",
            "Asks two things",
            none.clone(),
            |_, ctx| {
                let roots = ctx.roots()?;
                let form = json!({"type": "object", "properties": {}});
                ctx.elicit("Sure?", form)?;
                Ok(ToolOutput::text(format!("{} roots, sure", roots.len())))
            },
        ))
        .tool(Tool::new("echo", "Echoes", none.clone(), |args, _| {
            Ok(ToolOutput::text(args.str("text").unwrap_or("-")))
        }))
        .tool(Tool::new(
            "busy",
            "Checks for cancellation",
            none,
            |_, ctx| {
                for _ in 0..3 {
                    if ctx.is_cancelled() {
                        return Err(ctx.cancelled());
                    }
                }
                Ok(ToolOutput::text("done"))
            },
        ))
        .build()
        .expect("valid")
}

/// A session of a client that declared elicitation and roots, after its handshake.
struct Client<'s> {
    session: Session<'s>,
    wire: Rc<RefCell<Wire>>,
}

impl<'s> Client<'s> {
    fn new(server: &'s Server) -> Self {
        let wire = Rc::new(RefCell::new(Wire::default()));
        let mut client = Client {
            session: Session::new(server, Box::new(TestPort(Rc::clone(&wire)))),
            wire,
        };
        client.send(
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "roots": {}},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        client.take();
        client
    }

    fn send_from(&mut self, origin: Origin, message: Value) {
        self.session.receive(Unit(Ok(message)), origin);
    }

    fn send(&mut self, message: Value) {
        self.send_from(0, message);
    }

    fn call(&mut self, id: u64, tool: &str) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"text": format!("from {id}")}}}));
    }

    /// Everything sent since the last look.
    fn take(&mut self) -> Vec<Value> {
        let sent = std::mem::take(&mut self.wire.borrow_mut().sent);
        sent.into_iter().map(|(_, message)| message).collect()
    }
}

fn text(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a tool result: {message}"))
}

#[test]
fn a_question_parks_the_call_and_the_answer_runs_it_again() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    let asked = client.take();
    assert_eq!(asked.len(), 1, "only the question: {asked:?}");
    assert_eq!(asked[0]["method"], "elicitation/create");
    assert!(
        client.wire.borrow().finished.len() == 2,
        "the call's exchange stays open"
    );
    let question = asked[0]["id"].clone();
    client.send(json!({"jsonrpc": "2.0", "id": question,
        "result": {"action": "accept", "content": {"name": "Ada"}}}));
    let answered = client.take();
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(
        (answered[0]["id"].clone(), text(&answered[0])),
        (json!(1), "hi \"Ada\"")
    );
}

#[test]
fn each_question_of_a_call_is_asked_in_its_own_round_and_answers_are_kept() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "twice");
    let roots = client.take();
    assert_eq!(roots[0]["method"], "roots/list");
    client.send(json!({"jsonrpc": "2.0", "id": roots[0]["id"], "result": {"roots": []}}));
    let sure = client.take();
    assert_eq!(sure[0]["method"], "elicitation/create", "{sure:?}");
    assert_ne!(
        sure[0]["id"], roots[0]["id"],
        "question ids are never reused"
    );
    client.send(json!({"jsonrpc": "2.0", "id": sure[0]["id"], "result": {"action": "accept"}}));
    let done = client.take();
    assert_eq!(text(&done[0]), "0 roots, sure");
}

#[test]
fn requests_behind_a_parked_one_wait_their_turn_but_a_ping_does_not() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    let question = client.take()[0]["id"].clone();
    client.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    client.call(3, "echo");
    let meanwhile = client.take();
    assert_eq!(
        meanwhile,
        [json!({"jsonrpc": "2.0", "id": 2, "result": {}})]
    );
    client.send(json!({"jsonrpc": "2.0", "id": question, "result": {"action": "decline"}}));
    let after = client.take();
    let ids: Vec<&Value> = after.iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, [&json!(1), &json!(3)], "in the order of the requests");
}

#[test]
fn another_origin_is_served_while_one_is_parked() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    client.take();
    client.send_from(
        7,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "now"}}}),
    );
    let served = client.take();
    assert_eq!(text(&served[0]), "now");
    assert!(client.wire.borrow().finished.contains(&7));
}

#[test]
fn an_id_in_flight_is_refused_even_for_a_ping() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    client.take();
    client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    client.call(1, "echo");
    let refused = client.take();
    assert_eq!(refused.len(), 2, "{refused:?}");
    for message in refused {
        assert_eq!(message["error"]["code"], -32600, "{message}");
    }
}

#[test]
fn a_cancelled_parked_call_withdraws_its_question_and_frees_its_id() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    let question = client.take()[0]["id"].clone();
    client.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}}),
    );
    let withdrawn = client.take();
    assert_eq!(withdrawn.len(), 1, "no response to the call: {withdrawn:?}");
    assert_eq!(withdrawn[0]["method"], "notifications/cancelled");
    assert_eq!(withdrawn[0]["params"]["requestId"], question);
    client.call(1, "echo");
    assert_eq!(text(&client.take()[0]), "from 1", "the id is free again");
}

#[test]
fn an_unanswered_question_times_out_on_the_next_tick() {
    let limits = Limits {
        request_timeout: Duration::ZERO,
        ..Limits::default()
    };
    let server = server(limits);
    let mut client = Client::new(&server);
    client.call(1, "ask");
    client.take();
    assert!(
        client.session.deadline().is_some(),
        "the question has a deadline"
    );
    client.session.tick();
    let after = client.take();
    assert_eq!(after[0]["method"], "notifications/cancelled", "{after:?}");
    assert_eq!(after[1]["result"]["isError"], true);
    assert!(text(&after[1]).contains("did not answer"), "{after:?}");
    assert!(client.session.deadline().is_none());
}

#[test]
fn closed_input_ends_parked_calls_with_an_answer_then_serves_what_waited() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    client.call(1, "ask");
    client.take();
    client.call(2, "echo");
    client.session.close();
    let last = client.take();
    assert_eq!(last[0]["method"], "notifications/cancelled", "{last:?}");
    assert_eq!(
        (last[1]["id"].clone(), last[1]["result"]["isError"].clone()),
        (json!(1), json!(true))
    );
    assert_eq!(text(&last[2]), "from 2");
}

#[test]
fn a_running_handler_takes_pings_and_cancellations_but_leaves_requests_where_they_are() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    client
        .wire
        .borrow_mut()
        .pending
        .extend([(ping, 0), (list.clone(), 0), (cancel, 0)]);
    client.call(1, "busy");
    let sent = client.take();
    assert_eq!(
        sent[0],
        json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
        "{sent:?}"
    );
    assert_eq!(
        text(&sent[1]),
        "done",
        "the cancellation behind a request is not seen yet"
    );
    let left: Vec<Value> = client
        .wire
        .borrow()
        .pending
        .iter()
        .map(|(v, _)| v.clone())
        .collect();
    assert_eq!(left.first(), Some(&list), "the request stays first");
    assert_eq!(left.len(), 2);
}

#[test]
fn a_cancellation_taken_while_the_handler_runs_ends_it_without_a_response() {
    let server = server(Limits::default());
    let mut client = Client::new(&server);
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    client.wire.borrow_mut().pending.push_back((cancel, 0));
    client.call(1, "busy");
    assert_eq!(client.take(), Vec::<Value>::new());
}
