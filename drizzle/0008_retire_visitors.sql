DROP TABLE `salts`;--> statement-breakpoint
DROP TABLE `visitors`;