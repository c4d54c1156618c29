pub mod explore;
pub mod lesson;
pub mod sim;
pub mod ui;
pub mod wire;
pub mod work;
