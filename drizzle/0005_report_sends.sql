CREATE TABLE `report_sends` (
	`website_id` integer NOT NULL,
	`period` text NOT NULL,
	`claimed_at` integer NOT NULL,
	`sent_at` integer,
	PRIMARY KEY(`website_id`, `period`)
);
