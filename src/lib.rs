pub mod sim;
pub mod ui;
